package actors

import (
	"sync"
	"sync/atomic"

	"github.com/asynkron/protoactor-go/actor"
)

// inlineMailbox is the mailbox of the actors a parent drives inline (group
// and component actors). A message posted while the actor is idle is
// processed at once, on the poster's goroutine, without a queue; a message
// posted while the actor is busy is queued and processed, in order, before
// the busy call returns. It keeps the mailbox guarantee (one message at a
// time, in order) at a fraction of the cost of the default queue, which
// matters because a group steps each of its busy components once per
// window.
type inlineMailbox struct {
	// handler, when the actor has one, takes the actor's user messages
	// straight from this mailbox: the group and component actors handle
	// every user message the same whatever the context (no receive
	// timeout, middleware, metrics or reply), so protoactor-go's
	// per-message context plumbing is skipped for them. System messages
	// (Started, Stop, ...) still go through the actor's context.
	handler handler
	running atomic.Bool
	queued  atomic.Int32 // messages in the queue
	invoker actor.MessageInvoker
	// queue holds what is posted while the actor is busy (made when the
	// actor is spawned, before any message; a pointer, so that the fields
	// read at every message stay within a few bytes).
	queue *mailboxQueue
}

type mailboxQueue struct {
	mu     sync.Mutex
	user   []any
	system []any
}

// handler is an inline actor that takes its user messages from its
// mailbox directly.
type handler interface{ handle(msg any) }

func (m *inlineMailbox) PostUserMessage(msg any) {
	if m.handler != nil && m.running.CompareAndSwap(false, true) {
		m.handler.handle(msg)
		m.release()
		return
	}
	m.post(msg, false)
}

// tryPost hands msg to the actor's handler if the actor is idle, and
// reports whether it did; a busy actor (running on another worker) is left
// alone and msg is not kept, so the caller may reuse it.
func (m *inlineMailbox) tryPost(msg any) bool {
	if m.handler == nil || !m.running.CompareAndSwap(false, true) {
		return false
	}
	m.handler.handle(msg)
	m.release()
	return true
}

func (m *inlineMailbox) PostSystemMessage(msg any) { m.post(msg, true) }

func (m *inlineMailbox) post(msg any, system bool) {
	if m.running.CompareAndSwap(false, true) {
		m.invoke(msg, system)
		m.release()
		return
	}
	m.queue.put(msg, system, &m.queued)
	// The actor may have gone idle before the message was queued.
	if m.running.CompareAndSwap(false, true) {
		m.release()
	}
}

// invoke handles one message. A failure is not recovered here: it unwinds
// to the poster, up to the partition, whose mailbox reports it (a group
// names the component that failed).
func (m *inlineMailbox) invoke(msg any, system bool) {
	switch {
	case system:
		m.invoker.InvokeSystemMessage(msg)
	case m.handler != nil:
		m.handler.handle(msg)
	default:
		m.invoker.InvokeUserMessage(msg)
	}
}

// release processes what was queued meanwhile, then goes idle; a message
// queued as it goes idle is processed by whichever poster wins the actor
// back.
func (m *inlineMailbox) release() {
	for {
		for m.queued.Load() > 0 {
			msg, system := m.queue.pop(&m.queued)
			m.invoke(msg, system)
		}
		m.running.Store(false)
		if m.queued.Load() == 0 || !m.running.CompareAndSwap(false, true) {
			return
		}
	}
}

func (q *mailboxQueue) put(msg any, system bool, queued *atomic.Int32) {
	q.mu.Lock()
	if system {
		q.system = append(q.system, msg)
	} else {
		q.user = append(q.user, msg)
	}
	queued.Add(1)
	q.mu.Unlock()
}

func (q *mailboxQueue) pop(queued *atomic.Int32) (any, bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	queued.Add(-1)
	if len(q.system) > 0 {
		msg := q.system[0]
		q.system = q.system[1:]
		return msg, true
	}
	msg := q.user[0]
	q.user = q.user[1:]
	return msg, false
}

func (m *inlineMailbox) RegisterHandlers(invoker actor.MessageInvoker, _ actor.Dispatcher) {
	m.invoker = invoker
	m.queue = &mailboxQueue{}
}

func (m *inlineMailbox) Start() {}

func (m *inlineMailbox) UserMessageCount() int {
	q := m.queue
	q.mu.Lock()
	defer q.mu.Unlock()
	return len(q.user)
}
