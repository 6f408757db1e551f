package dtable

import (
	"bytes"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// TestWriteReadTable: the Table 10 configuration survives WriteTable and
// ReadTable, and the loaded table is the scheduler's table.
func TestWriteReadTable(t *testing.T) {
	r, err := Configure(table9)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := r.WriteTable(&buf); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"- {name: CL, mtu: 8}", "- {sl: VO, weight: 7} # 0", "- {sl: CL, weight: 130} # 3"} {
		if !strings.Contains(buf.String(), want) {
			t.Errorf("table file lacks %q", want)
		}
	}
	got, err := ReadTable(&buf)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, r.File) || !slices.Equal(got.Sched(), r.Table) {
		t.Error("table changed on the way through the file")
	}
	if !slices.Equal(got.MTUs(), []int{2, 4, 8, 16, 16}) {
		t.Errorf("MTUs = %v", got.MTUs())
	}
}

// TestTableNumericNames: SL names that look like numbers or booleans are
// quoted, so they load back as names.
func TestTableNumericNames(t *testing.T) {
	in := Table{SLs: []TableSL{{"0", 1}, {"true", 1}}, Entries: []TableEntry{{"0", 4}, {"true", 2}}}
	var buf bytes.Buffer
	if err := in.WriteYAML(&buf); err != nil {
		t.Fatal(err)
	}
	got, err := ReadTable(&buf)
	if err != nil || !reflect.DeepEqual(got, in) {
		t.Errorf("got %+v, %v; want %+v\n%s", got, err, in, buf.String())
	}
}

func TestReadTableErrors(t *testing.T) {
	const sls = "sls: [{name: VO, mtu: 2}, {name: VI, mtu: 4}]\n"
	for _, c := range []struct{ name, in, want string }{
		{"empty", "", "table file is empty"},
		{"unknown key", sls + "entries: [{sl: VO, weight: 2, vl: 0}]", "field vl not found"},
		{"top unknown key", sls + "entry: []", "field entry not found"},
		{"unknown SL", sls + "entries: [{sl: VO, weight: 2}, {sl: VI, weight: 4}, {sl: CL, weight: 8}]",
			`entries[2]: sl "CL" is not one of the sls (VO, VI)`},
		{"weight below MTU", sls + "entries: [{sl: VO, weight: 2}, {sl: VI, weight: 3}]",
			"entries[1]: weight 3 is below the MTU 4 of SL VI by 1 (allowed [4, 2147483647])"},
		{"weight not positive", sls + "entries: [{sl: VO, weight: 0}, {sl: VI, weight: 4}]",
			"entries[0]: weight 0 must be positive"},
		{"mtu", "sls: [{name: VO, mtu: 0}]\nentries: [{sl: VO, weight: 2}]", "sls[0]: mtu 0 must be positive"},
		{"SL without entry", sls + "entries: [{sl: VO, weight: 2}]", "SL VI: entries 0: the SL has no table entry"},
		{"no entries", sls, "entries has 0 entries (allowed 1 to 4096)"},
		{"duplicate SL", "sls: [{name: VO, mtu: 2}, {name: VO, mtu: 2}]\nentries: [{sl: VO, weight: 2}]",
			`sls[1]: name "VO" is listed twice`},
		{"two documents", sls + "entries: [{sl: VO, weight: 2}, {sl: VI, weight: 4}]\n---\nsls: []\n",
			"more than one YAML document"},
		{"wrong type", sls + "entries: [{sl: VO, weight: two}]", "cannot unmarshal"},
	} {
		_, err := ReadTable(strings.NewReader(c.in))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: err = %v, want %q", c.name, err, c.want)
		}
	}
}
