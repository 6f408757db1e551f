package apps

import (
	"runtime"
	"testing"
)

// TestAppBytes: the heap an FCFS workload takes per application (its App
// record, 32 bytes; flow count, 4; flag, 1; server list header, 24: 61)
// is within the estimate AppBytes, and the estimate is not more than
// 1.25 times it.
func TestAppBytes(t *testing.T) {
	const apps = 200_000
	base := liveHeap()
	w, err := NewFCFS(64, FCFSConfig{Apps: apps, Tasks: 4})
	if err != nil {
		t.Fatal(err)
	}
	per := float64(liveHeap()-base) / apps
	runtime.KeepAlive(w)
	t.Logf("%.1f B an application", per)
	if per > AppBytes || AppBytes > 1.25*per {
		t.Errorf("%.1f B an application, estimated %d", per, AppBytes)
	}
}
