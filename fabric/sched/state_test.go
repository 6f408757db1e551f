package sched

import (
	"os"
	"strconv"
	"strings"
	"testing"
)

// stateDims48 is a 48-port switch with Table 7's SLs (5 SLs, 2 SCs each,
// 10 SCs on 8 VLs), a DTable of 128 entries (the fabric's default, Table
// 10), vlarb's default tables (SL 0 high, the other 4 low) and 16-bit
// counters.
var stateDims48 = Dims{SLs: 5, VLs: 8, SCs: 10, SCsPerSL: 2, Ports: 48, Entries: 128,
	HighEntries: 1, LowEntries: 4, CounterBits: 16}

// TestStateSizes: every registered scheduler's storage on stateDims48,
// computed by hand from its fields (lg N = lg 5 = 3, lg V = 3; with a
// "none" value lg 6 = 3 for an SL, lg 9 = 4 for a VL, lg 129 = 8 for an
// entry of 128, lg 2 = 1 and lg 5 = 3 for vlarb's tables of 1 and 4; lg C
// = 1; B = 16).
func TestStateSizes(t *testing.T) {
	want := map[string]StateBits{
		"rr":         {Port: 3 + 5*3, Switch: 48 * 18},                                   // 18
		"rr_vl":      {Port: 4, Switch: 48 * 4},                                          // 4
		"rr_burst":   {Port: 2*5*16 + 3, Switch: 48 * 163},                               // 163
		"sbt":        {Port: 2*5*16 + 3, Switch: 48 * 163},                               // 163
		"sbt_switch": {Port: 5*16 + 3, Shared: 5 * 16, Switch: 48*83 + 80},               // 83, 80
		"sbt_strict": {Port: 2*5*16 + 3 + 5*4, Switch: 48 * 183},                         // 183
		"dtable":     {Port: 128*(3+16) + 2*5*16 + 16 + 3 + 8 + 5*1, Switch: 48 * 2624},  // 2624
		"dtable_sc":  {Port: 128*(3+16) + 10*16 + 3 + 8 + 2*5*1, Switch: 48 * 2613},      // 2613
		"strict":     {Port: 5 * 4, Switch: 48 * 20},                                     // 20
		"wrr":        {Port: 5*16 + 3 + 16 + 5*4, Switch: 48 * 119},                      // 119
		"drr":        {Port: 2*5*16 + 3 + 1 + 5*4, Switch: 48 * 184},                     // 184
		"vlarb":      {Port: 5*(3+16) + 1 + 3 + 2*16 + 2*16 + 3 + 5*4, Switch: 48 * 186}, // 186
	}
	for _, name := range Default().Names() {
		got, err := Default().StateSize(name, stateDims48)
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		if w, ok := want[name]; !ok {
			t.Errorf("%s: %+v, but no hand-computed value here", name, got)
		} else if got != w {
			t.Errorf("%s: %+v, want %+v", name, got, w)
		}
	}
	if _, err := Default().StateSize("fifo", stateDims48); err == nil {
		t.Error("StateSize(fifo): no error")
	}
}

// TestDimsOf: the test configuration's dimensions (its DTable has 16
// entries).
func TestDimsOf(t *testing.T) {
	want := stateDims48
	want.Entries = 16
	if got := DimsOf(paperConfig(), 48, 16); got != want {
		t.Errorf("DimsOf(paperConfig, 48, 16) = %+v, want %+v", got, want)
	}
}

// TestStateSizeDocs: docs/schedulers.md's "State size" table gives, for
// every registered scheduler, StateSize's bits on stateDims48 per port,
// shared per switch and per switch.
func TestStateSizeDocs(t *testing.T) {
	data, err := os.ReadFile("../../docs/schedulers.md")
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(data), "\n## State size\n")
	if !ok {
		t.Fatal(`docs/schedulers.md has no "## State size" section`)
	}
	section, _, _ = strings.Cut(section, "\n## ")
	rows := map[string][]string{}
	for _, line := range strings.Split(section, "\n") {
		cells := strings.Split(line, "|")
		if len(cells) < 6 || !strings.HasPrefix(strings.TrimSpace(cells[1]), "`") {
			continue
		}
		rows[strings.Trim(strings.TrimSpace(cells[1]), "`")] = cells[len(cells)-4 : len(cells)-1]
	}
	for _, name := range Default().Names() {
		cells, ok := rows[name]
		if !ok {
			t.Errorf("%s: no row in the State size table", name)
			continue
		}
		want, _ := Default().StateSize(name, stateDims48)
		for k, w := range []int{want.Port, want.Shared, want.Switch} {
			s := strings.ReplaceAll(strings.TrimSpace(cells[k]), ",", "")
			if s == "—" {
				s = "0"
			}
			if got, err := strconv.Atoi(s); err != nil || got != w {
				t.Errorf("%s: the docs give %q in column %d of the 48-port figures, StateSize %d", name, cells[k], k+1, w)
			}
		}
	}
}
