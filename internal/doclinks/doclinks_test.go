package doclinks

import (
	"fmt"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode"
)

// root is the repository, from this package's directory.
const root = "../.."

// link is a Markdown link or image target: [text](target) or
// [text](target "title").
var link = regexp.MustCompile(`\]\(([^()\s]+)(?:\s+"[^"]*")?\)`)

var (
	inlineCode = regexp.MustCompile("`[^`]*`")
	headingRe  = regexp.MustCompile(`^(#{1,6})\s+(.*?)\s*#*\s*$`)
	mdLink     = regexp.MustCompile(`\[([^\]]*)\]\([^)]*\)`)
)

// slug is GitHub's anchor of a heading's text.
func slug(text string) string {
	text = mdLink.ReplaceAllString(text, "$1")
	var b strings.Builder
	for _, r := range strings.ToLower(text) {
		switch {
		case unicode.IsLetter(r) || unicode.IsDigit(r) || r == '_' || r == '-':
			b.WriteRune(r)
		case r == ' ':
			b.WriteRune('-')
		}
	}
	return b.String()
}

// lines are a Markdown file's lines outside fenced code blocks.
func lines(text string) []string {
	var out []string
	fence := false
	for _, l := range strings.Split(text, "\n") {
		if strings.HasPrefix(strings.TrimSpace(l), "```") {
			fence = !fence
			out = append(out, "")
			continue
		}
		if fence {
			out = append(out, "")
			continue
		}
		out = append(out, l)
	}
	return out
}

// anchors are the anchors of a Markdown file's headings.
func anchors(text string) map[string]bool {
	seen := map[string]int{}
	out := map[string]bool{}
	for _, l := range lines(text) {
		m := headingRe.FindStringSubmatch(l)
		if m == nil {
			continue
		}
		s := slug(m[2])
		if n := seen[s]; n > 0 {
			out[fmt.Sprintf("%s-%d", s, n)] = true
		} else {
			out[s] = true
		}
		seen[s]++
	}
	return out
}

// docs are README.md and every .md file under docs/.
func docs(t *testing.T) []string {
	files := []string{filepath.Join(root, "README.md")}
	err := filepath.WalkDir(filepath.Join(root, "docs"), func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".md") {
			files = append(files, p)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(files)
	return files
}

// TestSlug: GitHub's rule on headings the docs have.
func TestSlug(t *testing.T) {
	for h, want := range map[string]string{
		"vlarb — InfiniBand-style VL arbitration":            "vlarb--infiniband-style-vl-arbitration",
		"The table view (`qos.scheduler_view: table`)":       "the-table-view-qosscheduler_view-table",
		"Scalability (seed 001 Fig. 7): `opasim flow scale`": "scalability-seed-001-fig-7-opasim-flow-scale",
		"One VL's rate: buffer space over the credit loop":   "one-vls-rate-buffer-space-over-the-credit-loop",
		"At ~64k servers: [the study](x.md)":                 "at-64k-servers-the-study",
	} {
		if got := slug(h); got != want {
			t.Errorf("slug(%q) = %q, want %q", h, got, want)
		}
	}
	a := anchors("# A\n## Tests\n```\n## Not a heading\n```\n### Tests\n## Tests\n")
	for _, s := range []string{"a", "tests", "tests-1", "tests-2"} {
		if !a[s] {
			t.Errorf("anchors lack %q: %v", s, a)
		}
	}
	if a["not-a-heading"] {
		t.Errorf("a line in a code block counted as a heading")
	}
}

// TestLinks: every relative link of the docs resolves to a file, and its
// anchor, if any, to a heading of that file.
func TestLinks(t *testing.T) {
	texts := map[string]string{}
	read := func(p string) (string, error) {
		if s, ok := texts[p]; ok {
			return s, nil
		}
		b, err := os.ReadFile(p)
		texts[p] = string(b)
		return string(b), err
	}
	checked := 0
	for _, file := range docs(t) {
		text, err := read(file)
		if err != nil {
			t.Fatal(err)
		}
		rel, _ := filepath.Rel(root, file)
		for i, l := range lines(text) {
			l = inlineCode.ReplaceAllString(l, "")
			for _, m := range link.FindAllStringSubmatch(l, -1) {
				target := m[1]
				if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
					continue
				}
				checked++
				where := fmt.Sprintf("%s:%d: %s", rel, i+1, target)
				path, anchor, _ := strings.Cut(target, "#")
				dest := file
				if path != "" {
					dest = filepath.Join(filepath.Dir(file), path)
					if _, err := os.Stat(dest); err != nil {
						t.Errorf("%s: no such file", where)
						continue
					}
				}
				if anchor == "" {
					continue
				}
				if !strings.HasSuffix(dest, ".md") {
					t.Errorf("%s: an anchor into a file that is not Markdown", where)
					continue
				}
				d, err := read(dest)
				if err != nil {
					t.Errorf("%s: %v", where, err)
					continue
				}
				if !anchors(d)[anchor] {
					t.Errorf("%s: no heading with anchor #%s in %s", where, anchor, filepath.Base(dest))
				}
			}
		}
	}
	if checked < 100 {
		t.Errorf("only %d links checked: the docs were not found or not read", checked)
	}
}

// importList is the imports column of docs/architecture.md's import
// tables: packages of opasim, comma separated, or — for none.
var importList = regexp.MustCompile(`^(?:[a-z0-9_/]+(?:, [a-z0-9_/]+)*|—)$`)

// importRow reads a row of those tables: the package (in backticks) and
// its imports of opasim's, the third column from the end. ok is false
// for other rows.
func importRow(l string) (pkg string, list []string, ok bool) {
	if !strings.HasPrefix(l, "| `") {
		return "", nil, false
	}
	cells := strings.Split(strings.Trim(l, "| "), " | ")
	if len(cells) < 3 {
		return "", nil, false
	}
	pkg = strings.Trim(cells[0], "`")
	col := cells[len(cells)-2]
	if !importList.MatchString(col) {
		return "", nil, false
	}
	if col != "—" {
		list = strings.Split(col, ", ")
	}
	return pkg, list, true
}

// imports lists the packages of this module that the non-test Go files
// of dir import, without the module path.
func imports(t *testing.T, dir string) []string {
	const module = "github.com/opasim/opasim/"
	files, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		t.Fatal(err)
	}
	set := map[string]bool{}
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		parsed, err := parser.ParseFile(token.NewFileSet(), f, nil, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		for _, imp := range parsed.Imports {
			p, _ := strconv.Unquote(imp.Path.Value)
			if strings.HasPrefix(p, module) {
				set[strings.TrimPrefix(p, module)] = true
			}
		}
	}
	var out []string
	for p := range set {
		out = append(out, p)
	}
	slices.Sort(out)
	return out
}

// TestArchitectureImports: every row of docs/architecture.md's import
// tables that lists a package's imports of opasim's lists exactly those
// its code has.
func TestArchitectureImports(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(root, "docs", "architecture.md"))
	if err != nil {
		t.Fatal(err)
	}
	rows := 0
	for _, l := range lines(string(data)) {
		pkg, doc, ok := importRow(l)
		if !ok {
			continue
		}
		dir := filepath.Join(root, filepath.FromSlash(pkg))
		if st, err := os.Stat(dir); err != nil || !st.IsDir() {
			continue // not a package
		}
		rows++
		slices.Sort(doc)
		if got := imports(t, dir); !slices.Equal(doc, got) {
			t.Errorf("docs/architecture.md says %s imports %v; its code imports %v", pkg, doc, got)
		}
	}
	if rows < 30 {
		t.Errorf("only %d rows of imports checked: the tables were not found", rows)
	}
}
