package mpirec

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/opasim/opasim/internal/testlong"
)

// patternVEF is testdata/pattern.c's trace without computation, worked
// out from the program by hand (its comment says what each rank does):
//
//   - G0, the barrier: no rank has waited for anything yet, so every part
//     is independent.
//   - The ring: rank 0's message (0) follows its barrier part. Ranks 1,
//     2 and 3 each waited in MPI_Recv for the message before theirs
//     (rank 0 slept first), so theirs (1, 2, 3) depend on its receipt.
//   - The pairs: every rank's last anchor is its blocking ring send, but
//     rank 0's, whose MPI_Recv of message 3 waited (rank 3 slept before
//     forwarding it). Ranks 1, 3, 0, 2 send in that order: 4 (after
//     sending 1), 5 (after sending 3), 6 (after receiving 3), 7 (after
//     sending 2).
//   - In MPI_Waitall, ranks 1 and 3 waited for their partners' messages
//     (6 and 7); ranks 0 and 2 found theirs there, and their own send,
//     begun since their last anchor, is what they follow. So the
//     broadcast's parts depend on: rank 0 sending 6, rank 1 receiving 6,
//     rank 2 sending 7, rank 3 receiving 7. Rank 0 is the root: 800 / 0.
//   - The allreduce (8 bytes) follows the broadcast, the all-to-alls of 64
//     bytes the allreduce: the even ranks' (on C1 = {0, 2}) before the odd
//     ranks' (C2 = {1, 3}), who slept first.
const patternVEF = `VEF 4 8 3 5 16 FALSE
C0 0 1 2 3
C1 0 2
C2 1 3
G0 0 6 0 0 0 0 0 -1
G0 0 6 1 0 0 0 0 -1
G0 0 6 2 0 0 0 0 -1
G0 0 6 3 0 0 0 0 -1
0 0 1 1000 3 0 G0
1 1 2 1000 2 0 0
2 2 3 1000 2 0 1
3 3 0 1000 2 0 2
4 1 0 2000 1 0 1
5 3 2 2000 1 0 3
6 0 1 2000 2 0 3
7 2 3 2000 1 0 2
G1 0 0 0 800 0 1 0 6
G1 0 0 1 0 800 2 0 6
G1 0 0 2 0 800 1 0 7
G1 0 0 3 0 800 2 0 7
G2 0 2 0 8 8 3 0 G1
G2 0 2 1 8 8 3 0 G1
G2 0 2 2 8 8 3 0 G1
G2 0 2 3 8 8 3 0 G1
G3 1 7 0 64 0 3 0 G2
G3 1 7 2 64 0 3 0 G2
G4 2 7 1 64 0 3 0 G2
G4 2 7 3 64 0 3 0 G2
`

// mpiTools finds mpicc and mpirun, or skips the test saying which is
// missing.
func mpiTools(t *testing.T) (mpicc, mpirun string) {
	t.Helper()
	var err error
	if mpicc, err = exec.LookPath("mpicc"); err != nil {
		testlong.Skipf(t, "mpicc not found: install an MPI (Debian: apt-get install openmpi-bin libopenmpi-dev) to test the recorder")
	}
	if mpirun, err = exec.LookPath("mpirun"); err != nil {
		testlong.Skipf(t, "mpirun not found: install an MPI (Debian: apt-get install openmpi-bin libopenmpi-dev) to test the recorder")
	}
	return mpicc, mpirun
}

// recordPattern builds the recorder and testdata/pattern.c and runs it
// on 4 ranks with the recorder preloaded; it returns the ranks'
// directory.
func recordPattern(t *testing.T) string {
	t.Helper()
	mpicc, mpirun := mpiTools(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	tmp := t.TempDir()
	var log bytes.Buffer
	lib, err := Library(ctx, filepath.Join(tmp, "cache"), mpicc, &log)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(log.String(), "building the MPI recorder (once; kept in "+filepath.Dir(lib)+"): ") {
		t.Errorf("the build says %q: want where it keeps the library and the command", log.String())
	}
	again, err := Library(ctx, filepath.Join(tmp, "cache"), mpicc, &log)
	if err != nil || again != lib || strings.Count(log.String(), "building") != 1 {
		t.Errorf("a second Library call: %s, %v, log %q: want the same library, not built again", again, err, log.String())
	}
	prog := filepath.Join(tmp, "pattern")
	if out, err := exec.CommandContext(ctx, mpicc, "-O2", "-o", prog, "testdata/pattern.c").CombinedOutput(); err != nil {
		t.Fatalf("mpicc testdata/pattern.c: %v\n%s", err, out)
	}
	dir := filepath.Join(tmp, "ranks")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	args := []string{"--oversubscribe", "-np", "4", "-x", "LD_PRELOAD=" + lib, "-x", "VEFREC_DIR=" + dir, prog}
	if os.Geteuid() == 0 {
		args = append([]string{"--allow-run-as-root"}, args...)
	}
	if out, err := exec.CommandContext(ctx, mpirun, args...).CombinedOutput(); err != nil {
		t.Fatalf("mpirun %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return dir
}

// TestPatternGroundTruth: testdata/pattern.c, recorded on 4 ranks, gives
// the trace worked out by hand, record by record; with the CPU clock,
// rank 1's 100 ms of computation before the allreduce is its part's
// delay, and the sleeps are not computation; with the wall clock they
// are.
func TestPatternGroundTruth(t *testing.T) {
	dir := recordPattern(t)
	golden, err := os.ReadFile("testdata/pattern.vef")
	if err != nil {
		t.Fatal(err)
	}
	if string(golden) != patternVEF {
		t.Fatalf("testdata/pattern.vef (the command's test compares with it) differs from the trace worked out here")
	}
	var b bytes.Buffer
	rep, err := Merge(dir, &b, Options{Compute: None})
	if err != nil {
		t.Fatal(err)
	}
	if b.String() != patternVEF {
		t.Errorf("recorded\n%s\nwant\n%s", b.String(), patternVEF)
	}
	wantCalls := map[string]int64{"Comm_split": 4, "Barrier": 4, "Send": 4, "Recv": 4, "Irecv": 4, "Isend": 4, "Waitall": 4,
		"Bcast": 4, "Allreduce": 4, "Alltoall": 4, "Finalize": 4}
	if fmt.Sprint(rep.Calls) != fmt.Sprint(wantCalls) || len(rep.Unsupported) != 0 {
		t.Errorf("calls %v, unsupported %v: want %v and none", rep.Calls, rep.Unsupported, wantCalls)
	}
	if rep.Messages != 8 || rep.MessageBytes != 4*1000+4*2000 || rep.Receives != 8 || rep.OnReceive != 6 {
		t.Errorf("report %+v: want 8 messages of 12000 bytes, 8 receives, 6 records after a receipt", rep)
	}

	delays := func(c Clock) map[string]int64 {
		var b bytes.Buffer
		if _, err := Merge(dir, &b, Options{Compute: c, Scale: 1}); err != nil {
			t.Fatal(err)
		}
		d := map[string]int64{}
		for _, line := range strings.Split(strings.TrimSpace(b.String()), "\n")[4:] {
			f := strings.Fields(line)
			key := f[0] // message id
			if strings.HasPrefix(f[0], "G") {
				key = f[0] + "/" + f[3] // collective/task
			}
			d[key], _ = strconv.ParseInt(f[len(f)-2], 10, 64)
		}
		return d
	}
	const ms = int64(time.Millisecond)
	cpu, wall := delays(CPU), delays(Wall)
	if d := cpu["G2/1"]; d < 100*ms || d > 1000*ms {
		t.Errorf("CPU clock: rank 1's allreduce part follows 100 ms of computation; its delay is %d ns", d)
	}
	for _, k := range []string{"G2/0", "G2/2", "G2/3", "3", "6"} {
		if cpu[k] > 50*ms {
			t.Errorf("CPU clock: record %s follows no computation (a sleep at most); its delay is %d ns", k, cpu[k])
		}
	}
	if d := wall["3"]; d < 100*ms {
		t.Errorf("wall clock: message 3 follows rank 3's 100 ms sleep; its delay is %d ns", d)
	}
	if d := wall["6"]; d < 300*ms {
		t.Errorf("wall clock: message 6 follows rank 0's 300 ms sleep; its delay is %d ns", d)
	}
}
