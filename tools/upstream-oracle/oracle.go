package main

import (
	"encoding/json"
	"fmt"
	"runtime/debug"
)

// request is the union of every op's fields (PROTOCOL.md).
type request struct {
	ID        json.RawMessage `json:"id"`
	Op        string          `json:"op"`
	Plugin    string          `json:"plugin"`
	Dir       string          `json:"dir"`
	Review    json.RawMessage `json:"review"`
	Namespace json.RawMessage `json:"namespace"`
	Object    json.RawMessage `json:"object"`
}

type answer = map[string]any

// oracle holds what survives between requests: the admission plugins built per manifest directory.
type oracle struct {
	plugins *pluginCache
}

func newOracle() *oracle {
	return &oracle{plugins: newPluginCache()}
}

func (o *oracle) close() { o.plugins.closeAll() }

func (o *oracle) handleLine(line []byte) (result answer) {
	var req request
	if err := json.Unmarshal(line, &req); err != nil {
		return answer{"id": nil, "oracleError": "request is not a JSON object: " + err.Error()}
	}
	var id any = nil
	if len(req.ID) > 0 {
		id = req.ID
	}
	// An upstream panic on odd input must not end the process: it becomes this request's oracleError.
	defer func() {
		if r := recover(); r != nil {
			result = answer{"id": id, "oracleError": fmt.Sprintf("panic: %v\n%s", r, debug.Stack())}
		}
	}()
	var err error
	switch req.Op {
	case "load":
		result, err = o.load(req)
	case "validate":
		result, err = o.validate(req)
	case "mutate":
		result, err = o.mutate(req)
	case "compile":
		result, err = o.compile(req)
	default:
		err = fmt.Errorf("unknown op %q (want load, validate, mutate or compile)", req.Op)
	}
	if err != nil {
		return answer{"id": id, "oracleError": err.Error()}
	}
	result["id"] = id
	return result
}
