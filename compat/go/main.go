// The Go compat driver: `krill-go-compat <scenario>` reads one JSON object on stdin, runs the scenario with
// franz-go or Sarama (unmodified, with their defaults unless the scenario is about a setting) and prints one
// JSON line of what the client received. A failure prints {"exception": "..."} and exits 1. Scenarios that
// must be steered from outside (a broker killed mid-run) also print {"progress": ...} lines before it.
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"sort"
	"sync"
	"time"
)

type scenario func(ctx context.Context, in json.RawMessage) (any, error)

var scenarios = map[string]scenario{}

func register(name string, fn scenario) { scenarios[name] = fn }

var outMu sync.Mutex

// emit prints one JSON line on stdout.
func emit(v any) {
	b, err := json.Marshal(v)
	if err != nil {
		b, _ = json.Marshal(map[string]string{"exception": "marshal: " + err.Error()})
	}
	outMu.Lock()
	defer outMu.Unlock()
	os.Stdout.Write(append(b, '\n'))
}

func main() {
	if len(os.Args) != 2 {
		names := make([]string, 0, len(scenarios))
		for n := range scenarios {
			names = append(names, n)
		}
		sort.Strings(names)
		fmt.Fprintf(os.Stderr, "usage: %s <scenario> < input.json; scenarios: %v\n", os.Args[0], names)
		os.Exit(2)
	}
	fn, ok := scenarios[os.Args[1]]
	if !ok {
		emit(map[string]string{"exception": "unknown scenario " + os.Args[1]})
		os.Exit(2)
	}
	in, err := io.ReadAll(os.Stdin)
	if err != nil {
		emit(map[string]string{"exception": "stdin: " + err.Error()})
		os.Exit(1)
	}
	if len(in) == 0 {
		in = []byte("{}")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Second)
	defer cancel()
	res, err := fn(ctx, in)
	if err != nil {
		emit(map[string]string{"exception": err.Error()})
		os.Exit(1)
	}
	emit(res)
}

// Record is a record as the tests send and receive it: text keys, values and header values, null allowed.
type Record struct {
	Topic     string   `json:"topic,omitempty"`
	Partition int32    `json:"partition"`
	Offset    int64    `json:"offset"`
	Key       *string  `json:"key"`
	Value     *string  `json:"value"`
	Headers   []Header `json:"headers"`
	Timestamp int64    `json:"timestamp"`
}

type Header struct {
	Key   string  `json:"key"`
	Value *string `json:"value"`
}

func bytesOf(s *string) []byte {
	if s == nil {
		return nil
	}
	return []byte(*s)
}

func textOf(b []byte) *string {
	if b == nil {
		return nil
	}
	s := string(b)
	return &s
}

func str(s string) *string { return &s }

// stepErr is an error as a report field: "" when nil.
func stepErr(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

func sortRecords(rs []Record) {
	sort.Slice(rs, func(i, j int) bool {
		if rs[i].Topic != rs[j].Topic {
			return rs[i].Topic < rs[j].Topic
		}
		if rs[i].Partition != rs[j].Partition {
			return rs[i].Partition < rs[j].Partition
		}
		return rs[i].Offset < rs[j].Offset
	})
}

// waitFor polls cond every 20 ms until it holds; an error names what was awaited.
func waitFor(ctx context.Context, what string, timeout time.Duration, cond func() bool) error {
	deadline := time.Now().Add(timeout)
	for !cond() {
		if time.Now().After(deadline) {
			return fmt.Errorf("timed out after %s waiting for %s", timeout, what)
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("waiting for %s: %w", what, ctx.Err())
		case <-time.After(20 * time.Millisecond):
		}
	}
	return nil
}

// splitAmong: each member owns at least one partition and partitions 0..n-1 are each owned by exactly one.
func splitAmong(n int32, owned ...[]int32) bool {
	seen := map[int32]int{}
	for _, o := range owned {
		if len(o) == 0 {
			return false
		}
		for _, p := range o {
			seen[p]++
		}
	}
	for p := int32(0); p < n; p++ {
		if seen[p] != 1 {
			return false
		}
	}
	return len(seen) == int(n)
}

// decode reads a scenario's input.
func decode[T any](raw json.RawMessage) (T, error) {
	var in T
	err := json.Unmarshal(raw, &in)
	return in, err
}
