package sched

// Default returns a registry with every built-in scheduler. Adding a
// scheduler is one file and one line here.
func Default() *Registry {
	r := NewRegistry()
	must(r.Register("rr", NewRR))
	must(r.Register("rr_vl", NewRRVL))
	must(r.Register("rr_burst", NewRRBurst))
	must(r.Register("sbt", NewSBT))
	must(r.Register("sbt_strict", NewSBTStrict))
	must(r.Register("dtable", NewDTable))
	return r
}

func must(err error) {
	if err != nil {
		panic(err)
	}
}
