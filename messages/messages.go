// Package messages defines what simulated components send each other: flits
// (as whole packets under virtual cut-through), credits, and the requests,
// grants, refusals, cancels, accepts and declines of the switch allocators. Every message names
// the component it is for and the cycle it takes effect; a message never
// takes effect earlier than the sender's cycle plus the minimum latency
// between components, which is what lets groups of components run a window
// of cycles without a barrier.
//
// Messages are plain values: no pointers into a sender's state.
//
// Imports: clock only.
package messages

import "github.com/opasim/opasim/clock"

// CompID numbers every simulated component (NICs first, then per switch its
// MPorts, central crossbar and output ports).
type CompID int32

// Kind tells what a message carries.
type Kind uint8

const (
	// KindPacket: a packet's flits on a link. Slot is the receiving port
	// index within the receiver (MPort: 0-3; NIC: 0).
	KindPacket Kind = iota
	// KindCredit: Count credits of VL returned to the sender of a link.
	KindCredit
	// KindRequest: an input or central buffer asks a destination arbiter to
	// accept Pkt; Slot is the requester's slot at the destination.
	KindRequest
	// KindGrant: the destination accepted the request of Slot; the transfer
	// starts at Start and the tail leaves the source at TailOut.
	KindGrant
	// KindNack: the destination refused the request of Slot (its VL has no
	// room); the source may request again, for this or another VL.
	KindNack
	// KindCancel: the source of Slot withdraws its request (another of its
	// VLs has a packet ready); answered by a refusal unless already granted.
	KindCancel
	// KindTail: the tail of packet Pkt.ID comes later than its receiver was
	// told, because a packet preempted it on a link upstream (qos.preemption).
	// On a link Pkt.Tail is the tail's new arrival cycle; between the
	// buffers of a switch TailAvail is when the tail is now available at the
	// source, Slot the request slot at the destination and VL the
	// destination's VL (or central lane).
	KindTail
	// KindAccept: under the islip allocator, the source of Slot accepts the
	// grant of its request Tag (the destination queues the packet; Count is
	// the iteration that matched it).
	KindAccept
	// KindDecline: under the islip allocator, the source of Slot declines
	// the grant of its request Tag (it accepted another destination's).
	KindDecline
)

func (k Kind) String() string {
	switch k {
	case KindPacket:
		return "packet"
	case KindCredit:
		return "credit"
	case KindRequest:
		return "request"
	case KindGrant:
		return "grant"
	case KindNack:
		return "nack"
	case KindCancel:
		return "cancel"
	case KindTail:
		return "tail"
	case KindAccept:
		return "accept"
	case KindDecline:
		return "decline"
	}
	return "unknown"
}

// SL is a service level: the class of traffic an application chose.
type SL uint8

// SC is a service channel: the SL's channel on a link (a torus packet
// changes SC at the dateline).
type SC uint8

// VL is a virtual lane: a share of a link and of each buffer on it. (A
// Msg's VL field stays an integer: towards a central buffer it carries the
// lane, class · VLs + VL.)
type VL uint8

// Packet is the unit that moves atomically under virtual cut-through: at
// most one SL MTU of a message. Head and Tail are the cycles its first and
// last flit reach the receiver of the link it is on.
type Packet struct {
	ID       uint64 // unique: source NIC << 40 | sequence
	Msg      uint64 // message id, unique like ID
	Src, Dst int32  // NICs
	SL       SL
	SC       SC   // service channel on the current link
	VL       VL   // virtual lane on the current link (SC2VL[SC])
	Last     bool // last packet of its message
	Flits    int32
	Credits  int32
	MsgFlits int32       // flits of the whole message
	GenAt    clock.Cycle // message generated at the source NIC
	InjAt    clock.Cycle // first header of the message left the source NIC
	Head     clock.Cycle
	Tail     clock.Cycle
}

// Msg is one message. Fields not used by a kind are zero.
type Msg struct {
	Kind  Kind
	At    clock.Cycle // effect cycle at the receiver
	Dst   CompID
	Src   CompID
	Slot  int32
	VL    int32 // credit: the VL; request/grant: the VL at the destination buffer (a central buffer: its lane)
	Count int32 // credit: number of credits; islip request and accept: the iteration (from 1)
	Out   int32 // request: the switch output port the packet is routed to
	Alone bool  // request: the source has no packet ready on another VL, so it may wait here
	Tag   int32 // request, grant, refusal, cancel: the source's number for the request (pipelined allocation)
	Queue int32 // request: the source's queue (VL or central lane) the packet comes from (pipelined allocation)

	// Request: Deadline is the last cycle the destination may decide on it
	// (the source has booked its read port from Ready on, and the transfer
	// must start exactly then); 0 when the destination may grant later,
	// the transfer then starting after Ready.
	Deadline clock.Cycle

	// Request: Ready is the earliest cycle the source can start the
	// transfer; TailAvail is when the packet's tail is available there.
	Ready     clock.Cycle
	TailAvail clock.Cycle
	// Grant: transfer start and tail departure at the source.
	Start   clock.Cycle
	TailOut clock.Cycle

	Pkt Packet
}
