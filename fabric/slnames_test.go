package fabric

import (
	"strings"
	"testing"

	"github.com/opasim/opasim/fabric/sched"
)

// TestSLNamesUnique: two SLs of one name are refused at the second,
// naming both indices; the names are otherwise free.
func TestSLNamesUnique(t *testing.T) {
	c := Default()
	c.QoS.SLs[3].Name = "VI"
	err := c.Validate(sched.Default())
	if err == nil || !strings.Contains(err.Error(), `qos.sls[3].name: "VI" is not allowed: must be unique: qos.sls[1] is named "VI" too`) {
		t.Errorf("two SLs named VI: %v", err)
	}
	c.QoS.SLs[3].Name = "be"
	if err := c.Validate(sched.Default()); err != nil {
		t.Errorf("names differing in case: %v", err)
	}
}
