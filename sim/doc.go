// Package sim is the run layer: it turns a config into a network (reading
// the files the config names), drives it with an engine through the one
// window loop every engine shares (Windows: the global clock's calendar,
// interruption, progress, the watchdog, the observer), and measures the
// outcome (Results, the digest). The sequential reference engine is here;
// the actor engine (package actors) plugs in through Engine.
//
// Imports: clock, messages, fabric and its subpackages.
package sim
