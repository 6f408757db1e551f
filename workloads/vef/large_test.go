package vef

import (
	"bufio"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/opasim/opasim/internal/testlong"
)

// The large trace: 64 tasks, 1,000 allreduces over C0 (64,000 parts)
// spread among 1,936,000 messages, 2,000,000 records in all.
const (
	largeTasks       = 64
	largeCollectives = 1000
	largeMessages    = 2_000_000 - largeCollectives*largeTasks
)

// writeLarge writes the large trace with a Writer: message i goes from
// task i mod 64 to the next task once its source has received message
// i-1; each task's part of allreduce g follows its part of g-1.
func writeLarge(t *testing.T, path string) {
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	world := make([]int, largeTasks)
	for i := range world {
		world[i] = i
	}
	h := Header{Tasks: largeTasks, P2PMessages: largeMessages, Collectives: largeCollectives,
		CollectiveParts: largeCollectives * largeTasks, Communicators: []Communicator{{0, world}}}
	bw := bufio.NewWriter(f)
	w, err := NewWriter(bw, h)
	if err != nil {
		t.Fatal(err)
	}
	every := int64(largeMessages / largeCollectives)
	for i := int64(0); i < largeMessages; i++ {
		dep := Dep{AfterReceive, 100, i - 1}
		if i == 0 {
			dep = Dep{Independent, 0, -1}
		}
		check(t, w.Write(msg(0, i, int(i%largeTasks), int((i+1)%largeTasks), 4096, dep.Kind, dep.TimeNS, dep.ID)))
		if (i+1)%every == 0 {
			g := (i+1)/every - 1
			for task := 0; task < largeTasks; task++ {
				dep := Dep{AfterCollective, 50, g - 1}
				if g == 0 {
					dep = Dep{Independent, 0, -1}
				}
				check(t, w.Write(part(0, g, 0, Allreduce, task, 8, 8, dep.Kind, dep.TimeNS, dep.ID)))
			}
		}
	}
	check(t, w.Close())
	check(t, bw.Flush())
}

func check(t *testing.T, err error) {
	if err != nil {
		t.Helper()
		t.Fatal(err)
	}
}

func heapAlloc() uint64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// TestLargeTraceBoundedHeap reads 2 million records through Open and
// checks what the reader holds once it has read them all, against what
// doc.go says it keeps: the 256 KiB file buffer, the 64 KiB line
// buffer, 64 tasks of C0 and a map entry per complete collective. The
// bound allowed, 1 MiB + 128 B a collective (1.12 MiB), is over twice
// that; the records themselves would take 2,000,000 × 144 B (the size of
// a Record) ≈ 275 MiB, the file is about 60 MiB. The peak, sampled every
// 100,000 records without forcing a collection, is allowed 16 MiB over
// the start: the collector lets garbage grow to at least 4 MiB before it
// runs, and a Next allocates nothing when the record is valid.
func TestLargeTraceBoundedHeap(t *testing.T) {
	testlong.Skip(t, "writes and reads a 2-million-record trace")
	path := filepath.Join(t.TempDir(), "large.vef")
	writeLarge(t, path)
	st, err := os.Stat(path)
	check(t, err)

	before := heapAlloc()
	rd, err := Open(path)
	check(t, err)
	n, peak := 0, before
	var m runtime.MemStats
	for {
		_, err := rd.Next()
		if err == io.EOF {
			break
		}
		check(t, err)
		if n++; n%100_000 == 0 {
			runtime.ReadMemStats(&m)
			peak = max(peak, m.HeapAlloc)
		}
	}
	after := heapAlloc()
	runtime.KeepAlive(rd)
	check(t, rd.Close())

	if n != 2_000_000 {
		t.Fatalf("read %d records, want 2,000,000", n)
	}
	t.Logf("%d records, %d bytes; heap %d B before, %d B after (reader alive), peak %d B",
		n, st.Size(), before, after, peak)
	held := int64(after) - int64(before)
	if bound := int64(1<<20 + 128*largeCollectives); held > bound {
		t.Errorf("the reader holds %d B after 2M records, over the bound %d B", held, bound)
	}
	if over := int64(peak) - int64(before); over > 16<<20 {
		t.Errorf("peak heap %d B over the start, allowed 16 MiB", over)
	}
}
