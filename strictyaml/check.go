package strictyaml

import (
	"fmt"
	"reflect"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/opasim/opasim/problem"
)

// maxDepth is the deepest nesting of lists and mappings a config file may
// have. A config is five levels deep (qos.sls[i].scs[j]); the YAML parser
// itself stops at 10,000.
const maxDepth = 64

// MaxReported caps the problems one file reports, so a hostile file of a
// million unknown keys gives a short message.
const MaxReported = 20

// maxPathShown is the most characters of a key path a message shows.
const maxPathShown = 120

// KeyProblems lists what a config file says that the config cannot hold:
// unknown keys, values of the wrong type, nesting too deep. Each entry
// names the key path as the file writes it (qos.sls[2].mtu_bytes), its
// line, and what is wrong; it is an error when non-empty.
type KeyProblems = problem.List

// checker walks a parsed YAML document against the Go type it is to be
// decoded into, through the types' yaml tags, and collects the problems.
// It descends only where the document and the type agree, so its recursion
// is bounded by the type's depth, whatever the document's.
type checker struct {
	problems KeyProblems
	more     int
	// seen holds each (node, type) pair checked: an alias used many times
	// (an alias bomb) or inside itself is checked once.
	seen map[visit]bool
}

type visit struct {
	node *yaml.Node
	t    reflect.Type
}

// checkDocument returns the problems of doc against type t, nil if none.
func checkDocument(doc *yaml.Node, t reflect.Type) error {
	c := &checker{seen: map[visit]bool{}}
	if deep, path := tooDeep(doc, 0, ""); deep != nil {
		c.report(path, deep.Line, fmt.Sprintf("nested more than %d levels deep", maxDepth))
	} else if doc.Kind == yaml.DocumentNode && len(doc.Content) == 1 {
		c.walk(doc.Content[0], t, "")
	}
	if c.more > 0 {
		c.problems.Addf("", "and %d more problems", c.more)
	}
	if len(c.problems) == 0 {
		return nil
	}
	return c.problems
}

// tooDeep returns the first node nested deeper than maxDepth below n (at
// depth d and path) and its path. Aliases are not followed: what they
// stand for is checked where it is written.
func tooDeep(n *yaml.Node, d int, path string) (*yaml.Node, string) {
	if d > maxDepth {
		return n, path
	}
	for i, c := range n.Content {
		at := path
		switch {
		case n.Kind == yaml.SequenceNode:
			at = fmt.Sprintf("%s[%d]", path, i)
		case n.Kind == yaml.MappingNode && i%2 == 1:
			at = join(path, keyText(n.Content[i-1]))
		}
		if deep, p := tooDeep(c, d+1, at); deep != nil {
			return deep, p
		}
	}
	return nil, ""
}

func (c *checker) report(path string, line int, what string) {
	if len(c.problems) >= MaxReported {
		c.more++
		return
	}
	if path == "" {
		path = "top level"
	}
	c.problems.Addf(fmt.Sprintf("%s (line %d)", shortenTo(path, maxPathShown), line), "%s", what)
}

// walk checks node n, found at path, against type t.
func (c *checker) walk(n *yaml.Node, t reflect.Type, path string) {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if n.Kind == yaml.AliasNode {
		if n.Alias == nil {
			return // the parser refuses an unknown anchor
		}
		c.walk(n.Alias, t, path)
		return
	}
	v := visit{n, t}
	if c.seen[v] || isNull(n) {
		return
	}
	c.seen[v] = true
	switch t.Kind() {
	case reflect.Struct:
		if c.expect(n, yaml.MappingNode, t, path) {
			c.walkStruct(n, t, path)
		}
	case reflect.Slice, reflect.Array:
		if c.expect(n, yaml.SequenceNode, t, path) {
			if t.Kind() == reflect.Array && len(n.Content) != t.Len() {
				c.report(path, n.Line, fmt.Sprintf("%d elements is not allowed: must be exactly %d", len(n.Content), t.Len()))
				return
			}
			for i, e := range n.Content {
				c.walk(e, t.Elem(), fmt.Sprintf("%s[%d]", path, i))
			}
		}
	case reflect.Map:
		if c.expect(n, yaml.MappingNode, t, path) {
			for i := 0; i+1 < len(n.Content); i += 2 {
				c.walk(n.Content[i+1], t.Elem(), join(path, keyText(n.Content[i])))
			}
		}
	case reflect.Interface:
		// anything fits
	default:
		if c.expect(n, yaml.ScalarNode, t, path) {
			if why := scalarProblem(n, t); why != "" {
				c.report(path, n.Line, why)
			}
		}
	}
}

func isNull(n *yaml.Node) bool { return n.Kind == yaml.ScalarNode && n.ShortTag() == "!!null" }

// expect reports n unless it is of kind k.
func (c *checker) expect(n *yaml.Node, k yaml.Kind, t reflect.Type, path string) bool {
	if n.Kind == k {
		return true
	}
	c.report(path, n.Line, fmt.Sprintf("%s is not %s", describeNode(n), describeType(t)))
	return false
}

// walkStruct checks the keys of mapping n against the yaml tags of struct
// type t: unknown and repeated keys, then each value against its field.
// A merge key (<<) brings in mappings that are checked against t too.
func (c *checker) walkStruct(n *yaml.Node, t reflect.Type, path string) {
	fields := yamlFields(t)
	first := map[string]int{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if k.Kind == yaml.AliasNode && k.Alias != nil {
			k = k.Alias
		}
		if k.Kind != yaml.ScalarNode {
			c.report(path, k.Line, describeNode(k)+" is not a key")
			continue
		}
		if k.ShortTag() == "!!merge" {
			c.walkMerge(v, t, path)
			continue
		}
		at := join(path, keyText(k))
		if line, dup := first[k.Value]; dup {
			c.report(at, k.Line, fmt.Sprintf("repeated key (first at line %d)", line))
			continue
		}
		first[k.Value] = k.Line
		f, ok := fields.byName[k.Value]
		if !ok {
			c.report(at, k.Line, unknownKey(k.Value, fields.names))
			continue
		}
		c.walk(v, f, at)
	}
}

// walkMerge checks the value of a merge key: a mapping, or a list of them.
func (c *checker) walkMerge(v *yaml.Node, t reflect.Type, path string) {
	if v.Kind == yaml.AliasNode && v.Alias != nil {
		v = v.Alias
	}
	if v.Kind == yaml.SequenceNode {
		for _, e := range v.Content {
			c.walk(e, t, path)
		}
		return
	}
	c.walk(v, t, path)
}

// fieldSet is a struct type's yaml keys, in field order, and their types.
type fieldSet struct {
	names  []string
	byName map[string]reflect.Type
}

// yamlFields lists the keys yaml.v3 decodes into struct type t: the tag's
// name, else the field's name in lower case; inline structs contribute
// their own keys; "-" and unexported fields none.
func yamlFields(t reflect.Type) fieldSet {
	fs := fieldSet{byName: map[string]reflect.Type{}}
	for i := range t.NumField() {
		f := t.Field(i)
		if !f.IsExported() {
			continue
		}
		tag := f.Tag.Get("yaml")
		name, opts, _ := strings.Cut(tag, ",")
		if name == "-" {
			continue
		}
		if strings.Contains(","+opts+",", ",inline,") && f.Type.Kind() == reflect.Struct {
			in := yamlFields(f.Type)
			for _, n := range in.names {
				fs.add(n, in.byName[n])
			}
			continue
		}
		if name == "" {
			name = strings.ToLower(f.Name)
		}
		fs.add(name, f.Type)
	}
	return fs
}

func (fs *fieldSet) add(name string, t reflect.Type) {
	fs.names = append(fs.names, name)
	fs.byName[name] = t
}

func join(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}
