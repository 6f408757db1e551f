package actors

import (
	"github.com/asynkron/protoactor-go/actor"

	"github.com/opasim/opasim/fabric"
)

// componentActor wraps one model component (a NIC, MPort, central crossbar
// or output port). It only files the messages its group hands it, advances
// the model and hands back what the model sent.
type componentActor struct {
	c fabric.Component
}

func (a *componentActor) Receive(ctx actor.Context) { a.handle(ctx.Message()) }

// handle takes a user message (from the mailbox directly, or through the
// context).
func (a *componentActor) handle(msg any) {
	if s, ok := msg.(*step); ok {
		a.step(s)
	}
}

func (a *componentActor) step(s *step) {
	if len(s.in) > 0 {
		a.c.Deliver(s.in)
	}
	s.next = a.c.Advance(s.to, &s.out)
	s.ran = true
}
