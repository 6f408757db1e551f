package main

import (
	"encoding/json"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/opasim/opasim/internal/testlong"
	"github.com/opasim/opasim/workloads/collective"
	"github.com/opasim/opasim/workloads/vef"
)

// hpccInput is a small hpccinf.txt: HPL with N = 500, NB = 40, on a 4×4
// grid (16 ranks); the other tests size themselves from it.
const hpccInput = `HPLinpack benchmark input file
Innovative Computing Laboratory, University of Tennessee
HPL.out      output file name (if any)
8            device out (6=stdout,7=stderr,file)
1            # of problems sizes (N)
500          Ns
1            # of NBs
40           NBs
0            PMAP process mapping (0=Row-,1=Column-major)
1            # of process grids (P x Q)
4            Ps
4            Qs
16.0         threshold
1            # of panel fact
2            PFACTs (0=left, 1=Crout, 2=Right)
1            # of recursive stopping criterium
4            NBMINs (>= 1)
1            # of panels in recursion
2            NDIVs
1            # of recursive panel fact.
1            RFACTs (0=left, 1=Crout, 2=Right)
1            # of broadcast
1            BCASTs (0=1rg,1=1rM,2=2rg,3=2rM,4=Lng,5=LnM)
1            # of lookahead depth
1            DEPTHs (>=0)
2            SWAP (0=bin-exch,1=long,2=mix)
64           swapping threshold
0            L1 in (0=transposed,1=no-transposed) form
0            U  in (0=transposed,1=no-transposed) form
1            Equilibration (0=no,1=yes)
8            memory alignment in double (> 0)
##### This line (no. 32) is ignored (it serves as a separator). ######
0                      		Number of additional problem sizes for PTRANS
1200 10000 30000        	values of N
0                       	number of additional blocking sizes for PTRANS
40 9 8 13 13 20 16 32 64       	values of NB
`

// networkMessages is how many messages replaying the trace at path
// sends through the network when every task has a NIC of its own: its
// messages between two tasks, and those its collectives are lowered to
// (the replay's default algorithms).
func networkMessages(t *testing.T, path string) int64 {
	t.Helper()
	rd, err := vef.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer rd.Close()
	h := rd.Header()
	type open struct {
		spec  collective.Spec
		parts int
	}
	colls := map[int64]*open{}
	var n int64
	for {
		rec, err := rd.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if rec.Kind == vef.KindMessage {
			if rec.Message.Src != rec.Message.Dst {
				n++
			}
			continue
		}
		p := rec.Part
		tasks := h.Communicators[p.Comm].Tasks
		c := colls[p.GID]
		if c == nil {
			c = &open{spec: collective.Spec{Op: p.Op, Size: len(tasks), SendBytes: make([]int64, len(tasks)), RecvBytes: make([]int64, len(tasks))}}
			colls[p.GID] = c
		}
		rank := 0
		for i, task := range tasks {
			if task == p.Task {
				rank = i
			}
		}
		c.spec.SendBytes[rank], c.spec.RecvBytes[rank] = p.SendBytes, p.RecvBytes
		if (p.Op == vef.Broadcast || p.Op == vef.Scatter) && p.SendBytes != 0 || (p.Op == vef.Reduce || p.Op == vef.Gather) && p.RecvBytes != 0 {
			c.spec.Root = rank
		}
		if c.parts++; c.parts == len(tasks) {
			for r := range len(tasks) {
				for _, round := range c.spec.Part(r, nil) {
					if round.Send != nil {
						n++
					}
				}
			}
			delete(colls, p.GID)
		}
	}
	return n
}

// TestTraceRecordHPCC records hpcc (Debian's) at 16 ranks, cuts its HPL
// and MPIRandomAccess sections out of the one recording, and replays
// each on the 8-ary 2-tree at the cycle level under both engines (the
// same digest, execution time and messages: the trace's messages and
// those its collectives are lowered to) and at the flow level (every
// message and part of the trace replayed, nothing unfinished).
func TestTraceRecordHPCC(t *testing.T) {
	testlong.Skip(t, "hpcc at 16 ranks recorded, a few minutes on two cores, then replayed")
	for _, tool := range []string{"mpicc", "mpirun", "hpcc"} {
		if _, err := exec.LookPath(tool); err != nil {
			testlong.Skipf(t, "%s not found: install Debian's openmpi-bin, libopenmpi-dev and hpcc to record hpcc", tool)
		}
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "hpccinf.txt"), []byte(hpccInput), 0o644); err != nil {
		t.Fatal(err)
	}
	ranks := filepath.Join(dir, "ranks")
	rec := exec.Command(binary, "trace", "record", "--np", "16", "--cache", filepath.Join(dir, "cache"), "--keep", ranks, "--mark", "Begin of", "--mark", "End of",
		"--out", filepath.Join(dir, "hpcc.vef.gz"), "--report", filepath.Join(dir, "hpcc.json"), "--timeout", "30m", "--", "hpcc")
	rec.Dir = dir
	out, err := rec.CombinedOutput()
	if err != nil {
		t.Fatalf("trace record hpcc: %v\n%s", err, out)
	}
	var whole recordReport
	readJSON(t, filepath.Join(dir, "hpcc.json"), &whole)
	if whole.Messages == 0 || whole.Receives != whole.Messages || len(whole.Unsupported) != 0 {
		t.Errorf("hpcc: %d messages, %d receives, unsupported %v: want every message received and nothing unsupported", whole.Messages, whole.Receives, whole.Unsupported)
	}
	t.Logf("hpcc, 16 ranks: %s", strings.TrimSpace(string(out[strings.LastIndex(string(out), "trace record: 16 ranks"):])))

	for _, section := range []string{"HPL", "MPIRandomAccess"} {
		trace := filepath.Join(dir, section+".vef.gz")
		_, stderr, code := opasim(t, "trace", "record", "--ranks", ranks, "--from", "Begin of "+section+" section",
			"--to", "End of "+section+" section", "--out", trace, "--report", filepath.Join(dir, section+".json"))
		if code != 0 {
			t.Fatalf("%s section: exit %d\n%s", section, code, stderr)
		}
		var rr recordReport
		readJSON(t, filepath.Join(dir, section+".json"), &rr)
		if rr.Messages < 1000 || rr.Parts < 16 {
			t.Errorf("%s section: %d messages, %d collective parts: want at least 1000 and one collective of all 16 ranks", section, rr.Messages, rr.Parts)
		}
		want := networkMessages(t, trace)
		var digest string
		for _, engine := range []string{"sequential", "actors"} {
			res := filepath.Join(dir, section+"-"+engine+".json")
			_, stderr, code := opasim(t, "run", "--traffic", "paper-mix", "--preset", "tree-8ary-2", "--trace", trace, "--trace-sl", "2",
				"--load", "0", "--engine", engine, "--out", res)
			if code != 0 {
				t.Fatalf("%s, %s: exit %d\n%s", section, engine, code, stderr)
			}
			var r struct {
				Digest string `json:"digest"`
				Trace  struct {
					Finished  bool  `json:"finished"`
					Execution int64 `json:"execution_cycles"`
					Messages  int64 `json:"messages"`
					Records   int64 `json:"records"`
				} `json:"trace"`
			}
			readJSON(t, res, &r)
			if !r.Trace.Finished || r.Trace.Records != rr.Messages+rr.Parts || r.Trace.Messages != want {
				t.Errorf("%s, %s: finished %v, %d records, %d messages; want finished, %d records (%d messages and %d parts recorded) and %d messages",
					section, engine, r.Trace.Finished, r.Trace.Records, r.Trace.Messages, rr.Messages+rr.Parts, rr.Messages, rr.Parts, want)
			}
			if digest == "" {
				digest = r.Digest
				t.Logf("%s: %d messages recorded, %d through the network, %d cycles", section, rr.Messages, r.Trace.Messages, r.Trace.Execution)
			} else if r.Digest != digest {
				t.Errorf("%s: digest %s under the actors engine, %s under the sequential one", section, r.Digest, digest)
			}
		}
		res := filepath.Join(dir, section+"-flow.json")
		_, stderr, code = opasim(t, "flow", "dynamic", "--preset", "tree-8ary-2", "--trace", trace, "--capacity", "12.5", "--serial-sends",
			"--progress=false", "--out", res)
		if code != 0 {
			t.Fatalf("%s at flow level: exit %d\n%s", section, code, stderr)
		}
		var f struct {
			Dynamic struct {
				Unfinished int64
				Trace      struct {
					Messages, Parts int64
					TaskEndMax      float64
				}
			} `json:"dynamic"`
		}
		readJSON(t, res, &f)
		if d := f.Dynamic; d.Unfinished != 0 || d.Trace.Messages != rr.Messages || d.Trace.Parts != rr.Parts || d.Trace.TaskEndMax <= 0 {
			t.Errorf("%s at flow level: %+v: want every one of %d messages and %d parts replayed, nothing unfinished", section, d, rr.Messages, rr.Parts)
		}
	}
}

func readJSON(t *testing.T, path string, v any) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err == nil {
		err = json.Unmarshal(b, v)
	}
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}
