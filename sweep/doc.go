// Package sweep runs the experiment of seed 000 section 4.2.3 as a library:
// a grid of schedulers × injection rates × seeds around one base config, a
// resumable runner that stores each run's results and reuses stored ones,
// the per-point means with Student-t 95% confidence intervals, and the
// plots of Figs. 3 and 4.
//
// The runner does not know how a config is simulated: the caller passes a
// SimulateFunc, so this package chooses and drives no engine (it imports
// package sim only for the Results type). Parsing of the axes (ParseLoads,
// ParseSchedulers, SeedRange, ParseSeedList) refuses a grid of more than
// MaxPoints runs before anything is allocated or run.
//
// A grid can be cut into N shards (Shard: point k, in grid order, is shard
// k mod N's), each run on its own into its own directory with a manifest
// (shard.json) that records the whole grid and its SHA-256; Merge checks
// the shards against each other and writes the summary and the plots of
// the whole grid with the same code, so they are byte for byte those of
// the grid run unsharded.
//
// Imports: fabric (for Config) and sim (for Results) only; from outside,
// gonum's stat and plot packages and renameio (atomic writes of the run
// files). No flags, no printing except to the writers it is given, no
// os.Exit.
package sweep
