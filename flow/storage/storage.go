// Package storage is the flow engine's storage subsystem (seed 001
// section 3.5, Fig. 6): an NVM device attached to every node behind its
// PCIe controller, a memory cache in front of it, and a central SAN on a
// network of its own; and the assignment policies that place an
// application's data: Local, Internal, External, or on the SAN.
//
// The devices are resources of the max-min problem like the network's
// links: a System is a route.Router over the network whose paths for
// storage flows cross, beside the network's links, the PCIe controller
// and device of the node holding the data, or the node's SAN link and
// the SAN server. The dynamic engine (dynamic.Resources) solves them
// together, so storage (I/O, class 1) flows compete with application
// (class 0) flows on the network links they share under the engine's
// NP, BA or FP policy, and with one another at the devices.
//
// Endpoints: the network's servers 0..S-1 are the nodes; S+j is node j's
// NVM device; 2S+k is SAN server k. Resources: the network's L links,
// then L+j node j's PCIe controller, L+S+j its device, L+2S+j its link to
// the SAN, L+3S+j the SAN's link to it, L+4S+k SAN server k.
package storage

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/opasim/opasim/flow/graph"
	"github.com/opasim/opasim/flow/route"
)

// Config is the storage hardware. Zero fields take their defaults.
type Config struct {
	// PCIe is each node's PCIe controller bandwidth to its NVM device,
	// shared by reads and writes (0: 1, the network links' default).
	PCIe float64 `yaml:"pcie" json:"pcie"`
	// Device is each NVM device's bandwidth, shared by reads and writes
	// (0: 1).
	Device float64 `yaml:"device" json:"device"`
	// CacheHit is the fraction of every read from an NVM device found in
	// the memory of the node holding it, in [0, 1] (default 0): that part
	// is read at once if the node is the reader's, else over the network
	// without crossing the PCIe controller or the device. Writes go to
	// the device.
	CacheHit float64 `yaml:"cache_hit" json:"cache_hit"`
	SAN      SAN     `yaml:"san" json:"san"`
}

// SAN is the central storage and its network: a star of every node's
// link (one each way) to the SAN's switch and the storage servers.
type SAN struct {
	Servers int     `yaml:"servers" json:"servers"` // storage servers (0: 1)
	Server  float64 `yaml:"server" json:"server"`   // each storage server's bandwidth, reads and writes together (0: 1)
	Link    float64 `yaml:"link" json:"link"`       // each node's SAN link, each way (0: 1)
}

// Limits on the fields (a bound on memory as much as on sense).
const (
	MaxSANServers = 1 << 16
	MaxBandwidth  = 1e300
)

// WithDefaults returns c with its zero fields set to their defaults.
func (c Config) WithDefaults() Config {
	def := func(x *float64) {
		if *x == 0 {
			*x = 1
		}
	}
	def(&c.PCIe)
	def(&c.Device)
	def(&c.SAN.Server)
	def(&c.SAN.Link)
	if c.SAN.Servers == 0 {
		c.SAN.Servers = 1
	}
	return c
}

// Check validates c; every error names the field, its value and the
// range allowed.
func (c Config) Check() error {
	var errs []error
	for _, x := range []struct {
		name string
		v    float64
	}{{"storage.pcie", c.PCIe}, {"storage.device", c.Device}, {"storage.san.server", c.SAN.Server}, {"storage.san.link", c.SAN.Link}} {
		if !(x.v >= 0 && x.v <= MaxBandwidth) {
			errs = append(errs, fmt.Errorf("%s: %v is not allowed: must be in (0, %g] (0: the default, 1)", x.name, x.v, MaxBandwidth))
		}
	}
	if !(c.CacheHit >= 0 && c.CacheHit <= 1) {
		errs = append(errs, fmt.Errorf("storage.cache_hit: %v is not allowed: must be in [0, 1]", c.CacheHit))
	}
	if c.SAN.Servers < 0 || c.SAN.Servers > MaxSANServers {
		errs = append(errs, fmt.Errorf("storage.san.servers: %d is not allowed: must be in [1, %d] (0: the default, 1)", c.SAN.Servers, MaxSANServers))
	}
	return errors.Join(errs...)
}

// System routes flows over a network and its storage devices.
type System struct {
	inner   route.Router
	g       *graph.Graph
	servers int32
	links   int32
	san     int32
	caps    []float64
	buf     []int32
	fn      route.PathFunc
	pre     []int32 // links before the network path (for onPath)
	post    []int32 // links after it
}

// New returns the system of c's hardware over r's network.
func New(r route.Router, c Config) (*System, error) {
	if err := c.Check(); err != nil {
		return nil, err
	}
	c = c.WithDefaults()
	g := r.Graph()
	s := &System{inner: r, g: g, servers: int32(g.NumServers()), links: int32(g.NumLinks()), san: int32(c.SAN.Servers)}
	if int64(s.links)+4*int64(s.servers)+int64(s.san) > math.MaxInt32 {
		return nil, fmt.Errorf("storage: %d links and %d servers need more than %d resources", s.links, s.servers, math.MaxInt32)
	}
	S := int(s.servers)
	caps := make([]float64, 0, int(s.links)+4*S+int(s.san))
	caps = append(caps, g.Capacities()...)
	for _, x := range []float64{c.PCIe, c.Device, c.SAN.Link, c.SAN.Link} {
		for range S {
			caps = append(caps, x)
		}
	}
	for range s.san {
		caps = append(caps, c.SAN.Server)
	}
	s.caps = caps
	return s, nil
}

// Endpoints is the number of flow ends: servers, NVM devices, SAN
// servers (dynamic.Resources).
func (s *System) Endpoints() int32 { return 2*s.servers + s.san }

// Capacities is every resource's capacity: the network's links, then the
// PCIe controllers, the devices, the SAN links up and down and the SAN
// servers (dynamic.Resources).
func (s *System) Capacities() []float64 { return s.caps }

// NVM is the endpoint of node's NVM device.
func (s *System) NVM(node int32) int32 { return s.servers + node }

// SANServer is the endpoint of SAN server k.
func (s *System) SANServer(k int32) int32 { return 2*s.servers + k }

// Resource ids.
func (s *System) PCIeLink(node int32) int32   { return s.links + node }
func (s *System) DeviceLink(node int32) int32 { return s.links + s.servers + node }
func (s *System) SANUp(node int32) int32      { return s.links + 2*s.servers + node }
func (s *System) SANDown(node int32) int32    { return s.links + 3*s.servers + node }
func (s *System) SANLink(k int32) int32       { return s.links + 4*s.servers + k }

// Servers is the number of nodes (the network's servers).
func (s *System) Servers() int32 { return s.servers }

// SANServers is the number of SAN servers.
func (s *System) SANServers() int32 { return s.san }

// Name is the network routing's name with "+storage".
func (s *System) Name() string { return s.inner.Name() + "+storage" }

// Graph is the network.
func (s *System) Graph() *graph.Graph { return s.g }

// Clone returns a system sharing the capacities, with its own scratch.
func (s *System) Clone() route.Router {
	c := *s
	c.inner, c.buf, c.fn, c.pre, c.post = s.inner.Clone(), nil, nil, nil, nil
	return &c
}

// Describe names endpoint x ("server 3", "nvm 3", "san 0").
func (s *System) Describe(x int32) string {
	switch {
	case x < 0 || x >= s.Endpoints():
		return fmt.Sprintf("endpoint %d (none)", x)
	case x < s.servers:
		return fmt.Sprintf("server %d", x)
	case x < 2*s.servers:
		return fmt.Sprintf("nvm %d", x-s.servers)
	}
	return fmt.Sprintf("san %d", x-2*s.servers)
}

// Route calls fn for each path from src to dst. Between two servers it is
// the network's routing. From node j's NVM device: j's device and PCIe
// controller, then the network path from j (none if dst is j); to a
// device the reverse. From SAN server k to node j: k, then the SAN's link
// to j; from j to k the reverse. Devices and SAN servers exchange data
// only with servers.
func (s *System) Route(src, dst int32, fn route.PathFunc) error {
	n := s.Endpoints()
	if src < 0 || src >= n {
		return fmt.Errorf("flow src: %d is not allowed: must be an endpoint in [0, %d)", src, n)
	}
	if dst < 0 || dst >= n {
		return fmt.Errorf("flow dst: %d is not allowed: must be an endpoint in [0, %d)", dst, n)
	}
	if src == dst {
		return fmt.Errorf("flow dst: %d is not allowed: must differ from src", dst)
	}
	S := s.servers
	if src < S && dst < S {
		return s.inner.Route(src, dst, fn)
	}
	if src >= S && dst >= S {
		return fmt.Errorf("flow %s to %s is not allowed: a storage flow goes between a server and a device or SAN server", s.Describe(src), s.Describe(dst))
	}
	var node int32
	s.pre, s.post = s.pre[:0], s.post[:0]
	switch {
	case src >= 2*S: // SAN server → node
		k := src - 2*S
		s.pre = append(s.pre, s.SANLink(k), s.SANDown(dst))
		fn(s.pre, 1)
		return nil
	case dst >= 2*S: // node → SAN server
		k := dst - 2*S
		s.pre = append(s.pre, s.SANUp(src), s.SANLink(k))
		fn(s.pre, 1)
		return nil
	case src >= S: // NVM of node → server dst
		node = src - S
		s.pre = append(s.pre, s.DeviceLink(node), s.PCIeLink(node))
		if node == dst {
			fn(s.pre, 1)
			return nil
		}
		return s.wrap(node, dst, fn)
	default: // server src → NVM of node
		node = dst - S
		s.post = append(s.post, s.PCIeLink(node), s.DeviceLink(node))
		if node == src {
			fn(s.post, 1)
			return nil
		}
		return s.wrap(src, node, fn)
	}
}

// wrap routes a → b over the network, each path between s.pre and s.post.
func (s *System) wrap(a, b int32, fn route.PathFunc) error {
	pre, post := s.pre, s.post
	return s.inner.Route(a, b, func(links []int32, share float64) {
		s.buf = append(append(append(s.buf[:0], pre...), links...), post...)
		fn(s.buf, share)
	})
}

// Policies name where an application's data is (seed 001 section 3.5).
const (
	Local    = "local"    // each task's data on its own node's device
	Internal = "internal" // on some of the devices of the application's partition
	External = "external" // on devices outside the partition
	OnSAN    = "san"      // on the central storage
)

// Policies lists the assignment policies.
func Policies() []string { return []string{Local, Internal, External, OnSAN} }

// Assign is an application's storage assignment.
type Assign struct {
	// Policy is local (the default), internal, external or san.
	Policy string `yaml:"policy" json:"policy,omitempty"`
	// Devices: internal, the devices of the partition used, its first
	// nodes' (0: half the partition, rounded up); external, the devices
	// used outside the partition, on the nodes that follow it (wrapping
	// round, skipping the partition; 0: as many as tasks). Ignored with
	// nodes.
	Devices int `yaml:"devices" json:"devices,omitempty"`
	// Nodes names the nodes whose devices hold the data instead
	// (internal: inside the partition; external: outside it).
	Nodes []int32 `yaml:"nodes" json:"nodes,omitempty"`
}

// Targets returns the storage endpoint of each task of an application on
// partition part (task i on part[i]) under a, on system s: task i's data
// is on Targets[i]. prefix names a's fields in errors.
func (s *System) Targets(prefix string, a Assign, part []int32) ([]int32, error) {
	n := len(part)
	in := make(map[int32]bool, n)
	for _, p := range part {
		in[p] = true
	}
	out := make([]int32, n)
	var devs []int32
	var err error
	switch a.Policy {
	case "", Local:
		if err := a.fixed(prefix, Local, "every task uses its own node's device"); err != nil {
			return nil, err
		}
		for i, p := range part {
			out[i] = s.NVM(p)
		}
		return out, nil
	case OnSAN:
		if err := a.fixed(prefix, OnSAN, "task i uses SAN server i mod storage.san.servers"); err != nil {
			return nil, err
		}
		for i := range part {
			out[i] = s.SANServer(int32(i) % s.san)
		}
		return out, nil
	case Internal:
		devs, err = internalDevices(prefix, a, part, in)
	case External:
		devs, err = s.externalDevices(prefix, a, part, in)
	default:
		return nil, fmt.Errorf("%spolicy: %q is not allowed: must be one of %s", prefix, a.Policy, strings.Join(Policies(), ", "))
	}
	if err != nil {
		return nil, err
	}
	for i := range part {
		out[i] = s.NVM(devs[i%len(devs)])
	}
	return out, nil
}

// fixed refuses devices or nodes given under policy, which places the
// data itself (why says how); prefix names a's fields.
func (a *Assign) fixed(prefix, policy, why string) error {
	if a.Devices != 0 {
		return fmt.Errorf("%sdevices: %d is not allowed with policy %s: must be 0 (%s)", prefix, a.Devices, policy, why)
	}
	if len(a.Nodes) > 0 {
		return fmt.Errorf("%snodes: %v is not allowed with policy %s: must be empty (%s)", prefix, a.Nodes, policy, why)
	}
	return nil
}

// internalDevices is the nodes whose devices hold the data under policy
// internal: a's nodes, all of partition part (in: its nodes), or its
// first a.Devices (0: half, rounded up).
func internalDevices(prefix string, a Assign, part []int32, in map[int32]bool) ([]int32, error) {
	n := len(part)
	if len(a.Nodes) > 0 {
		for k, v := range a.Nodes {
			if !in[v] {
				return nil, fmt.Errorf("%snodes[%d]: %d is not allowed with policy internal: must be a node of the partition (%s)", prefix, k, v, span(part))
			}
		}
		return a.Nodes, nil
	}
	d := a.Devices
	if d == 0 {
		d = (n + 1) / 2
	}
	if d < 1 || d > n {
		return nil, fmt.Errorf("%sdevices: %d is not allowed with policy internal: must be in [1, %d] (the partition's nodes; 0: %d)", prefix, a.Devices, n, (n+1)/2)
	}
	return part[:d], nil
}

// externalDevices is the nodes whose devices hold the data under policy
// external: a's nodes, all outside partition part (in: its nodes), or the
// a.Devices nodes (0: as many as tasks, at most those outside) that
// follow the partition's last, round the network, skipping its own.
func (s *System) externalDevices(prefix string, a Assign, part []int32, in map[int32]bool) ([]int32, error) {
	n := len(part)
	outside := int(s.servers) - len(in)
	if len(a.Nodes) > 0 {
		for k, v := range a.Nodes {
			if v < 0 || v >= s.servers || in[v] {
				return nil, fmt.Errorf("%snodes[%d]: %d is not allowed with policy external: must be a node in [0, %d) outside the partition (%s)", prefix, k, v, s.servers, span(part))
			}
		}
		return a.Nodes, nil
	}
	d := a.Devices
	if d == 0 {
		d = min(n, outside)
	}
	if d < 1 || d > outside {
		return nil, fmt.Errorf("%sdevices: %d is not allowed with policy external: must be in [1, %d] (the nodes outside the partition; 0: min(tasks, that))", prefix, a.Devices, outside)
	}
	var devs []int32
	last := slices.Max(part)
	for v := last + 1; len(devs) < d; v++ {
		v %= s.servers
		if !in[v] {
			devs = append(devs, v)
		}
	}
	return devs, nil
}

// span describes a partition: "a..b" if consecutive, else its size.
func span(part []int32) string {
	if len(part) == 0 {
		return "empty"
	}
	lo, hi := slices.Min(part), slices.Max(part)
	if int(hi-lo)+1 == len(part) {
		return fmt.Sprintf("nodes %d..%d", lo, hi)
	}
	return fmt.Sprintf("%d nodes", len(part))
}
