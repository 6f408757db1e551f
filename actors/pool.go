package actors

import (
	"runtime"
	"sync"
	"time"
)

// spinFor is how long an idle worker polls for work (without yielding: see
// next) before it parks: a window takes tens of microseconds, and waking a parked
// worker (an OS thread) costs about as much, every window. Spinning is
// bounded so a busy machine is not starved.
const spinFor = 200 * time.Microsecond

// pool is a protoactor dispatcher backed by a fixed set of worker
// goroutines, so activating a mailbox does not start a goroutine.
type pool struct {
	work       chan func()
	throughput int
	wg         sync.WaitGroup
}

// newPool starts workers goroutines; capacity must exceed the number of
// mailboxes that use the pool (each is scheduled at most once at a time).
func newPool(workers, capacity, throughput int) *pool {
	p := &pool{work: make(chan func(), capacity), throughput: throughput}
	p.wg.Add(workers)
	for i := 0; i < workers; i++ {
		go p.worker()
	}
	return p
}

func (p *pool) worker() {
	defer p.wg.Done()
	// A worker keeps its OS thread (and so its caches) for the whole run.
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	for {
		fn, ok := p.next()
		if !ok {
			return
		}
		fn()
	}
}

// next spins briefly, then blocks, for the next activation. It spins on
// the queue's length without yielding: a worker holds its OS thread, and
// a yield of a goroutine locked to its thread hands the thread's P to
// another thread and back (two thread switches a yield, tens a window).
func (p *pool) next() (func(), bool) {
	var deadline time.Time
	for i := 0; ; i++ {
		if len(p.work) > 0 {
			break
		}
		if i%256 == 0 {
			now := time.Now()
			if deadline.IsZero() {
				deadline = now.Add(spinFor)
			} else if now.After(deadline) {
				break
			}
		}
	}
	fn, ok := <-p.work
	return fn, ok
}

func (p *pool) Schedule(fn func()) { p.work <- fn }
func (p *pool) Throughput() int    { return p.throughput }

func (p *pool) close() {
	close(p.work)
	p.wg.Wait()
}
