// Command upstream-oracle answers questions about kube-apiserver 1.36's admission behaviour by running upstream's own
// code (k8s.io/kubernetes v1.36.3, k8s.io/apiserver v0.36.3). It reads one JSON request per line on stdin and writes
// one JSON answer per line on stdout, in order (PROTOCOL.md). Logs go to stderr only, so stdout stays parseable.
package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"

	"k8s.io/klog/v2"
)

func main() {
	verbose := flag.Bool("verbose", false, "write upstream's info logs to stderr too (by default only warnings and errors)")
	flag.Parse()
	quietLogs(*verbose)
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

// maxInFlight bounds the requests read ahead of the answer being written.
const maxInFlight = 64

// serve answers each request line, in input order. Requests run concurrently, except that those for one plugin and
// directory run one after another in input order (they share the plugin and its namespace lister). A line that is
// not a request gets an oracleError answer; the process only stops at the end of its input.
func serve(o *oracle, in io.Reader, out io.Writer) error {
	reader := bufio.NewReaderSize(in, 1<<20)
	pending := make(chan chan answer, maxInFlight)
	written := make(chan error, 1)
	go func() {
		writer := bufio.NewWriter(out)
		var failed error
		for next := range pending {
			a := <-next
			if failed != nil {
				continue
			}
			failed = writeAnswer(writer, a)
			if failed == nil && len(pending) == 0 {
				failed = writer.Flush()
			}
		}
		if failed == nil {
			failed = writer.Flush()
		}
		written <- failed
	}()
	lastOfKey := map[string]chan struct{}{}
	var readErr error
	for {
		var line []byte
		line, readErr = reader.ReadBytes('\n')
		if len(trimSpace(line)) > 0 {
			result := make(chan answer, 1)
			pending <- result
			key := orderingKey(line)
			previous := lastOfKey[key]
			done := make(chan struct{})
			if key != "" {
				lastOfKey[key] = done
				forgetFinished(lastOfKey)
			}
			go func() {
				defer close(done)
				if previous != nil {
					<-previous
				}
				result <- o.handleLine(line)
			}()
		}
		if readErr != nil {
			break
		}
	}
	close(pending)
	if err := <-written; err != nil {
		return err
	}
	if readErr == io.EOF {
		return nil
	}
	return readErr
}

// orderingKey names what a request must not overlap with: validate and mutate requests on one directory.
func orderingKey(line []byte) string {
	var head struct {
		Op  string `json:"op"`
		Dir string `json:"dir"`
	}
	if json.Unmarshal(line, &head) != nil || head.Dir == "" || (head.Op != "validate" && head.Op != "mutate") {
		return ""
	}
	return head.Op + "\x00" + head.Dir
}

// forgetFinished keeps the ordering map from growing with every directory ever seen.
func forgetFinished(last map[string]chan struct{}) {
	if len(last) < 4096 {
		return
	}
	for key, done := range last {
		select {
		case <-done:
			delete(last, key)
		default:
		}
	}
}

// writeAnswer writes one JSON line; messages keep their <, > and & unescaped so they read as upstream wrote them.
func writeAnswer(w io.Writer, a answer) error {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(a); err != nil {
		buf.Reset()
		if err := enc.Encode(answer{"id": a["id"], "oracleError": "encoding the answer: " + err.Error()}); err != nil {
			return err
		}
	}
	_, err := w.Write(buf.Bytes())
	return err
}

// quietLogs keeps upstream's per-load info lines out of stderr unless asked for: a suite builds thousands of plugins.
// Warnings and errors still reach stderr, once each.
func quietLogs(verbose bool) {
	flags := flag.NewFlagSet("klog", flag.ContinueOnError)
	klog.InitFlags(flags)
	if verbose {
		_ = flags.Set("logtostderr", "true")
		return
	}
	_ = flags.Set("logtostderr", "false")
	_ = flags.Set("alsologtostderr", "false")
	_ = flags.Set("stderrthreshold", "FATAL")
	// An entry is written to its own severity's output and every lower one's; only WARNING's goes anywhere.
	klog.SetOutputBySeverity("INFO", io.Discard)
	klog.SetOutputBySeverity("WARNING", os.Stderr)
	klog.SetOutputBySeverity("ERROR", io.Discard)
	klog.SetOutputBySeverity("FATAL", io.Discard)
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
