package fabric

// How a switch numbers its ports, MPorts, central buffers and request
// slots (seed 002 section 3, docs/model.md). Every component computes them
// here, not with the literal 4.
//
//   - A switch of radix R has R/PortsPerMPort MPorts; port p is input
//     buffer p.index() of MPort p.mport(). The central crossbar numbers its
//     request slots the same way (one per MPort input buffer).
//   - MPort mp owns central buffers 2·mp and 2·mp+1 (centralBuffers).
//   - An output port has outputSlots(mports) request slots: one per input
//     buffer of its own MPort (0 .. PortsPerMPort-1), then one per central
//     buffer b (centralSlot(b)).

// PortsPerMPort is the number of switch ports an MPort groups.
const PortsPerMPort = 4

// portNum is a switch port, or a central crossbar request slot.
type portNum int

// portOf is input buffer index of MPort mport.
func portOf(mport, index int) portNum { return portNum(PortsPerMPort*mport + index) }

// mport is the MPort the port belongs to.
func (p portNum) mport() int { return int(p) / PortsPerMPort }

// index is the port's input buffer within its MPort.
func (p portNum) index() int { return int(p) % PortsPerMPort }

// mportsOf is the number of MPorts of a switch of radix ports.
func mportsOf(radix int) int { return radix / PortsPerMPort }

// centralBuffers are the two central buffers of MPort mp.
func centralBuffers(mp int) (b0, b1 int) { return 2 * mp, 2*mp + 1 }

// outputSlots is the number of request slots of an output port of a switch
// with mports MPorts.
func outputSlots(mports int) int { return PortsPerMPort + 2*mports }

// centralSlot is the output port request slot of central buffer b.
func centralSlot(b int) int32 { return int32(PortsPerMPort + b) }

// isCentralSlot tells whether an output port request slot is a central
// buffer's (not an input buffer's of the port's own MPort).
func isCentralSlot(slot int) bool { return slot >= PortsPerMPort }

// centralOfSlot is the central buffer of an output port request slot
// (isCentralSlot), as grants and refusals echo it.
func centralOfSlot(slot int32) int { return int(slot) - PortsPerMPort }
