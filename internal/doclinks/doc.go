// Package doclinks holds the test that keeps the documentation's links
// whole: every relative link in README.md and docs/ names a file that
// exists and, when it has an anchor, a heading of that file (GitHub's
// anchors: the heading in lower case, punctuation dropped, spaces turned
// into hyphens, repeats numbered).
package doclinks
