// Package doclinks holds the tests that keep the documentation true to
// itself and to the code: every relative link in README.md and docs/
// names a file that exists and, when it has an anchor, a heading of that
// file (GitHub's anchors: the heading in lower case, punctuation dropped,
// spaces turned into hyphens, repeats numbered); and every package's
// imports of opasim's in docs/architecture.md's tables are those its code
// has.
package doclinks
