// Command upstream-oracle answers questions about kube-apiserver 1.36's admission behaviour by running upstream's own
// code (k8s.io/kubernetes v1.36.3, k8s.io/apiserver v0.36.3). It reads one JSON request per line on stdin and writes
// one JSON answer per line on stdout, in order (PROTOCOL.md). Logs go to stderr only, so stdout stays parseable.
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"

	"k8s.io/klog/v2"
)

func main() {
	klogFlags := flag.NewFlagSet("klog", flag.ContinueOnError)
	klog.InitFlags(klogFlags)
	// Upstream logs every load at info level; keep the default quiet so a test run's stderr stays readable.
	_ = klogFlags.Set("logtostderr", "true")
	_ = klogFlags.Set("v", "0")
	_ = klogFlags.Set("stderrthreshold", "ERROR")
	if err := enableUpstreamDefaults(); err != nil {
		fmt.Fprintln(os.Stderr, "upstream-oracle:", err)
		os.Exit(2)
	}
	o := newOracle()
	defer o.close()
	if err := serve(o, os.Stdin, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "upstream-oracle:", err)
		os.Exit(1)
	}
}

// serve answers each request line in turn. A line that is not a request gets an oracleError answer; the process only
// stops at the end of its input.
func serve(o *oracle, in io.Reader, out io.Writer) error {
	reader := bufio.NewReaderSize(in, 1<<20)
	writer := bufio.NewWriter(out)
	for {
		line, readErr := reader.ReadBytes('\n')
		if len(trimSpace(line)) > 0 {
			answer := o.handleLine(line)
			encoded, err := json.Marshal(answer)
			if err != nil {
				encoded, _ = json.Marshal(map[string]any{"id": answer["id"], "oracleError": "encoding the answer: " + err.Error()})
			}
			if _, err := writer.Write(append(encoded, '\n')); err != nil {
				return err
			}
			if err := writer.Flush(); err != nil {
				return err
			}
		}
		if readErr == io.EOF {
			return nil
		}
		if readErr != nil {
			return readErr
		}
	}
}

func trimSpace(b []byte) []byte {
	start, end := 0, len(b)
	for start < end && (b[start] == ' ' || b[start] == '\t' || b[start] == '\r' || b[start] == '\n') {
		start++
	}
	for end > start && (b[end-1] == ' ' || b[end-1] == '\t' || b[end-1] == '\r' || b[end-1] == '\n') {
		end--
	}
	return b[start:end]
}
