package scim

import (
	"fmt"
	"strings"

	filter "github.com/scim2/filter-parser/v2"
)

// An attribute a filter may name, in lower case ("name.givenname",
// "enterprise:employeenumber"), and whether its values compare with
// case (RFC 7643 caseExact).
type attrSet map[string]bool

var (
	userAttrs = attrSet{
		"id": true, "externalid": true, "username": false, "displayname": false, "active": false,
		"name.givenname": false, "name.familyname": false, "name.formatted": false,
		"emails": false, "emails.value": false, "emails.type": false, "emails.primary": false,
		"enterprise:employeenumber": true, "enterprise:department": false,
		"meta.created": true, "meta.lastmodified": true,
	}
	groupAttrs = attrSet{
		"id": true, "externalid": true, "displayname": false,
		"members": true, "members.value": true, "members.display": false,
		"meta.created": true, "meta.lastmodified": true,
	}
	emailAttrs  = attrSet{"value": false, "type": false, "primary": false}
	memberAttrs = attrSet{"value": true, "display": false}
)

// parseFilter parses a filter query and checks that it names only
// attributes of known and operators this service supports; anything else
// is an invalidFilter error (RFC 7644 §3.4.2.2).
func parseFilter(s string, known attrSet, core string) (filter.Expression, error) {
	e, err := filter.ParseFilter([]byte(s))
	if err != nil {
		return nil, &badRequest{"invalidFilter", fmt.Sprintf("the filter %q is not a SCIM filter", s)}
	}
	if err := check(e, known, core, ""); err != nil {
		return nil, err
	}
	return e, nil
}

// name is p's key in an attrSet, or "" for a schema this service does
// not know.
func name(p filter.AttributePath, core, parent string) string {
	n := strings.ToLower(p.AttributeName)
	if sub := p.SubAttributeName(); sub != "" {
		n += "." + strings.ToLower(sub)
	}
	switch uri := p.URI(); {
	case uri == "" || strings.EqualFold(uri, core):
	case strings.EqualFold(uri, EnterpriseSchema):
		n = "enterprise:" + n
	default:
		return ""
	}
	if parent != "" {
		n = parent + "." + n
	}
	return n
}

func check(e filter.Expression, known attrSet, core, parent string) error {
	switch e := e.(type) {
	case *filter.AttributeExpression:
		n := name(e.AttributePath, core, parent)
		if _, ok := known[n]; !ok {
			return &badRequest{"invalidFilter", fmt.Sprintf("the filter names %s, which cannot be filtered on", e.AttributePath)}
		}
		switch e.Operator {
		case filter.EQ, filter.NE, filter.CO, filter.SW, filter.EW, filter.PR:
		default:
			return &badRequest{"invalidFilter", fmt.Sprintf("the filter operator %q is not supported", e.Operator)}
		}
		return nil
	case *filter.LogicalExpression:
		if err := check(e.Left, known, core, parent); err != nil {
			return err
		}
		return check(e.Right, known, core, parent)
	case *filter.NotExpression:
		return check(e.Expression, known, core, parent)
	case *filter.ValuePath:
		n := name(e.AttributePath, core, parent)
		if _, ok := known[n]; !ok || strings.Contains(n, ".") {
			return &badRequest{"invalidFilter", fmt.Sprintf("the filter names %s, which cannot be filtered on", e.AttributePath)}
		}
		return check(e.ValueFilter, known, core, n)
	}
	return &badRequest{"invalidFilter", "the filter is not supported"}
}

// values returns the values at p in doc: one per element of a
// multi-valued attribute.
func values(doc map[string]any, p filter.AttributePath) []any {
	var v any = doc
	if strings.EqualFold(p.URI(), EnterpriseSchema) {
		v, _ = get(doc, EnterpriseSchema)
	}
	steps := []string{p.AttributeName}
	if sub := p.SubAttributeName(); sub != "" {
		steps = append(steps, sub)
	}
	cur := []any{v}
	for _, s := range steps {
		var next []any
		for _, c := range cur {
			m, ok := c.(map[string]any)
			if !ok {
				continue
			}
			x, ok := get(m, s)
			if !ok || x == nil {
				continue
			}
			switch x := x.(type) {
			case []any:
				next = append(next, x...)
			case []map[string]any:
				for _, e := range x {
					next = append(next, e)
				}
			default:
				next = append(next, x)
			}
		}
		cur = next
	}
	return cur
}

// matches evaluates a checked filter on a resource's document.
func matches(e filter.Expression, doc map[string]any, known attrSet) (bool, error) {
	switch e := e.(type) {
	case *filter.AttributeExpression:
		exact := known[name(e.AttributePath, "", "")]
		for _, v := range values(doc, e.AttributePath) {
			if compare(e.Operator, v, e.CompareValue, exact) {
				return e.Operator != filter.NE, nil
			}
		}
		return e.Operator == filter.NE, nil
	case *filter.LogicalExpression:
		l, err := matches(e.Left, doc, known)
		if err != nil {
			return false, err
		}
		if l == (e.Operator == filter.OR) {
			return l, nil
		}
		return matches(e.Right, doc, known)
	case *filter.NotExpression:
		ok, err := matches(e.Expression, doc, known)
		return !ok, err
	case *filter.ValuePath:
		sub := attrSet{}
		prefix := name(e.AttributePath, "", "") + "."
		for k, v := range known {
			if strings.HasPrefix(k, prefix) {
				sub[strings.TrimPrefix(k, prefix)] = v
			}
		}
		for _, v := range values(doc, e.AttributePath) {
			m, ok := v.(map[string]any)
			if !ok {
				continue
			}
			ok, err := matches(e.ValueFilter, m, sub)
			if err != nil || ok {
				return ok, err
			}
		}
		return false, nil
	}
	return false, &badRequest{"invalidFilter", "the filter is not supported"}
}

// compare compares an attribute's value v with a filter's value w. For
// "ne" it reports whether they are equal (matches negates it).
func compare(op filter.CompareOperator, v, w any, exact bool) bool {
	if op == filter.PR {
		s, isString := v.(string)
		return !isString || s != ""
	}
	if b, ok := v.(bool); ok {
		wb, ok := w.(bool)
		return ok && b == wb && (op == filter.EQ || op == filter.NE)
	}
	s, ok := v.(string)
	ws, ok2 := w.(string)
	if !ok || !ok2 {
		return false
	}
	if !exact {
		s, ws = strings.ToLower(s), strings.ToLower(ws)
	}
	switch op {
	case filter.EQ, filter.NE:
		return s == ws
	case filter.CO:
		return strings.Contains(s, ws)
	case filter.SW:
		return strings.HasPrefix(s, ws)
	case filter.EW:
		return strings.HasSuffix(s, ws)
	}
	return false
}
