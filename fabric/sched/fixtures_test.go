package sched

import "github.com/opasim/opasim/fabric/qos"

// paperConfig is the QoS scenario of seed 000 section 4 (Tables 7, 8, 10):
// SLs VO, VI, CL, BE, BK with two SCs each, SC8 and SC9 sharing VL6 and
// VL7 with BE, MTUs of 128/256/512/1024/1024 bytes in 64-byte credits, the
// SBT column of Table 10 (VI = 30, MODEL.md section 8), and paperTable.
func paperConfig() Config {
	return Config{
		NumVLs: 8,
		SLs: []SL{
			{Name: "VO", MTUCredits: 2, SBTWeight: 10},
			{Name: "VI", MTUCredits: 4, SBTWeight: 30},
			{Name: "CL", MTUCredits: 8, SBTWeight: 50},
			{Name: "BE", MTUCredits: 16, SBTWeight: 5},
			{Name: "BK", MTUCredits: 16, SBTWeight: 5},
		},
		Tables: qos.NewTables([][]int{{0, 1}, {2, 3}, {4, 5}, {6, 7}, {8, 9}}, []int{0, 1, 2, 3, 4, 5, 6, 7, 6, 7}),
		Table:  paperTable(),
	}
}

// paperTable is Table 10 scaled from 128 to 16 entries with Table 9's
// distances (VO every 2nd entry, VI every 4th, CL every 8th, BE and BK every
// 16th), laid out by MODEL.md section 8's placement rule, and Table 10's
// entry weights: VO 7 and 6 (T.W. 416/8 = 52), VI 39, CL 130, BE and BK 26.
func paperTable() []Entry {
	const vo, vi, cl, be, bk = 0, 1, 2, 3, 4
	return []Entry{
		{vo, 7}, {vi, 39}, {vo, 7}, {cl, 130}, {vo, 7}, {vi, 39}, {vo, 7}, {be, 26},
		{vo, 6}, {vi, 39}, {vo, 6}, {cl, 130}, {vo, 6}, {vi, 39}, {vo, 6}, {bk, 26},
	}
}

// dedicatedConfig is paperConfig with one VL per SC (10 VLs), so that every
// SL of an always-backlogged source is at a head at every decision. With
// shared VLs an SL is active only while its packet is at a VL's head, and
// the shares would measure the queue's interleaving as much as the scheduler.
func dedicatedConfig() Config {
	cfg := paperConfig()
	cfg.NumVLs = 10
	cfg.SC2VL = []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}
	return cfg
}
