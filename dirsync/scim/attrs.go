package scim

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	filter "github.com/scim2/filter-parser/v2"
)

// The schema URNs (RFC 7643) and message URNs (RFC 7644).
const (
	UserSchema       = "urn:ietf:params:scim:schemas:core:2.0:User"
	GroupSchema      = "urn:ietf:params:scim:schemas:core:2.0:Group"
	EnterpriseSchema = "urn:ietf:params:scim:schemas:extension:enterprise:2.0:User"
	listSchema       = "urn:ietf:params:scim:api:messages:2.0:ListResponse"
	errorSchema      = "urn:ietf:params:scim:api:messages:2.0:Error"
	patchSchema      = "urn:ietf:params:scim:api:messages:2.0:PatchOp"
)

// badRequest is a SCIM error of status 400 with its scimType.
type badRequest struct {
	scimType string
	detail   string
}

func (e *badRequest) Error() string { return e.detail }

func invalidValue(format string, a ...any) error {
	return &badRequest{"invalidValue", fmt.Sprintf(format, a...)}
}

// attrPath is a parsed attribute path, names in lower case: schema is ""
// for the resource's core schema, "enterprise" for the enterprise
// extension and "other" for a schema this service does not know; attr is
// empty for the whole extension.
type attrPath struct {
	schema string
	attr   string
	sub    string
	filter filter.Expression
}

// parsePath parses a PATCH path or a key of a PATCH value object.
func parsePath(s string, core string) (attrPath, error) {
	if strings.EqualFold(s, EnterpriseSchema) {
		return attrPath{schema: "enterprise"}, nil
	}
	p, err := filter.ParsePath([]byte(s))
	if err != nil {
		return attrPath{}, &badRequest{"invalidPath", fmt.Sprintf("path %q is not a SCIM attribute path", s)}
	}
	ap := attrPath{attr: strings.ToLower(p.AttributePath.AttributeName), filter: p.ValueExpression}
	ap.sub = strings.ToLower(p.AttributePath.SubAttributeName())
	if ap.sub == "" {
		ap.sub = strings.ToLower(p.SubAttributeName())
	}
	switch uri := p.AttributePath.URI(); {
	case uri == "" || strings.EqualFold(uri, core):
	case strings.EqualFold(uri, EnterpriseSchema):
		ap.schema = "enterprise"
	default:
		ap.schema = "other"
	}
	return ap, nil
}

func asString(v any, name string) (string, error) {
	switch v := v.(type) {
	case nil:
		return "", nil
	case string:
		return v, nil
	}
	return "", invalidValue("%s must be a string", name)
}

// asBool takes a JSON boolean or, as Entra sends it, the string "True"
// or "False" in any case.
func asBool(v any, name string) (bool, error) {
	switch v := v.(type) {
	case bool:
		return v, nil
	case string:
		switch strings.ToLower(v) {
		case "true":
			return true, nil
		case "false":
			return false, nil
		}
	}
	return false, invalidValue("%s must be a boolean", name)
}

// asList takes an array, or a single object as a one-element list.
func asList(v any, name string) ([]map[string]any, error) {
	switch v := v.(type) {
	case nil:
		return nil, nil
	case map[string]any:
		return []map[string]any{v}, nil
	case []any:
		var out []map[string]any
		for _, e := range v {
			m, ok := e.(map[string]any)
			if !ok {
				return nil, invalidValue("%s must be a list of objects", name)
			}
			out = append(out, m)
		}
		return out, nil
	}
	return nil, invalidValue("%s must be a list of objects", name)
}

// get returns the value of key in m without regard to case.
func get(m map[string]any, key string) (any, bool) {
	if v, ok := m[key]; ok {
		return v, true
	}
	for k, v := range m {
		if strings.EqualFold(k, key) {
			return v, true
		}
	}
	return nil, false
}

func parseEmail(m map[string]any) (Email, error) {
	var e Email
	var err error
	for k, v := range m {
		switch strings.ToLower(k) {
		case "value":
			e.Value, err = asString(v, "emails.value")
		case "type":
			e.Type, err = asString(v, "emails.type")
		case "primary":
			e.Primary, err = asBool(v, "emails.primary")
		}
		if err != nil {
			return e, err
		}
	}
	return e, nil
}

func emailDoc(e Email) map[string]any {
	return map[string]any{"value": e.Value, "type": e.Type, "primary": e.Primary}
}

// setUser applies an add or a replace of value at p to u. Attributes
// this service does not keep are ignored (RFC 7644 §3.3: the service
// provider is free to ignore what it does not support), read-only ones
// (id, meta, groups) too.
func setUser(u *User, op string, p attrPath, value any) error {
	var err error
	if p.schema == "other" {
		return nil
	}
	if p.schema == "enterprise" {
		if p.attr == "" {
			m, ok := value.(map[string]any)
			if !ok {
				return invalidValue("%s must be an object", EnterpriseSchema)
			}
			for k, v := range m {
				if err := setUser(u, op, attrPath{schema: "enterprise", attr: strings.ToLower(k)}, v); err != nil {
					return err
				}
			}
			return nil
		}
		switch p.attr {
		case "employeenumber":
			u.EmployeeNumber, err = asString(value, "employeeNumber")
		case "department":
			u.Department, err = asString(value, "department")
		}
		return err
	}
	switch p.attr {
	case "username":
		u.UserName, err = asString(value, "userName")
		if err == nil && u.UserName == "" {
			err = invalidValue("userName must not be empty")
		}
	case "externalid":
		u.ExternalID, err = asString(value, "externalId")
	case "displayname":
		u.DisplayName, err = asString(value, "displayName")
	case "active":
		u.Active, err = asBool(value, "active")
	case "name":
		switch p.sub {
		case "":
			m, ok := value.(map[string]any)
			if !ok && value != nil {
				return invalidValue("name must be an object")
			}
			if op == "replace" {
				u.GivenName, u.FamilyName, u.Formatted = "", "", ""
			}
			for k, v := range m {
				if err := setUser(u, op, attrPath{attr: "name", sub: strings.ToLower(k)}, v); err != nil {
					return err
				}
			}
		case "givenname":
			u.GivenName, err = asString(value, "name.givenName")
		case "familyname":
			u.FamilyName, err = asString(value, "name.familyName")
		case "formatted":
			u.Formatted, err = asString(value, "name.formatted")
		}
	case "emails":
		return setEmails(u, op, p, value)
	}
	return err
}

func setEmails(u *User, op string, p attrPath, value any) error {
	if p.filter == nil && p.sub == "" {
		list, err := asList(value, "emails")
		if err != nil {
			return err
		}
		if op == "replace" {
			u.Emails = nil
		}
		for _, m := range list {
			e, err := parseEmail(m)
			if err != nil {
				return err
			}
			if !slices.Contains(u.Emails, e) {
				u.Emails = append(u.Emails, e)
			}
		}
		return nil
	}
	if p.filter == nil {
		return &badRequest{"invalidPath", "emails." + p.sub + " needs a filter: emails[type eq \"work\"]." + p.sub}
	}
	matched := false
	for i := range u.Emails {
		ok, err := matches(p.filter, emailDoc(u.Emails[i]), emailAttrs)
		if err != nil {
			return err
		}
		if !ok {
			continue
		}
		matched = true
		if err := setEmail(&u.Emails[i], p.sub, value); err != nil {
			return err
		}
	}
	if matched {
		return nil
	}
	// No address matches: add one that does, from the filter's "eq"s.
	var e Email
	if err := seed(&e, p.filter); err != nil {
		return err
	}
	if err := setEmail(&e, p.sub, value); err != nil {
		return err
	}
	u.Emails = append(u.Emails, e)
	return nil
}

func setEmail(e *Email, sub string, value any) error {
	var err error
	switch sub {
	case "":
		m, ok := value.(map[string]any)
		if !ok {
			return invalidValue("an email must be an object")
		}
		ne, err := parseEmail(m)
		if err != nil {
			return err
		}
		if ne.Type == "" {
			ne.Type = e.Type
		}
		*e = ne
	case "value":
		e.Value, err = asString(value, "emails.value")
	case "type":
		e.Type, err = asString(value, "emails.type")
	case "primary":
		e.Primary, err = asBool(value, "emails.primary")
	}
	return err
}

// seed sets the attributes a filter of "eq"s joined by "and" names.
func seed(e *Email, f filter.Expression) error {
	switch f := f.(type) {
	case *filter.AttributeExpression:
		if f.Operator == filter.EQ {
			return setEmail(e, strings.ToLower(f.AttributePath.AttributeName), f.CompareValue)
		}
	case *filter.LogicalExpression:
		if f.Operator == filter.AND {
			if err := seed(e, f.Left); err != nil {
				return err
			}
			return seed(e, f.Right)
		}
	}
	return nil
}

// removeUser applies a remove at p to u.
func removeUser(u *User, p attrPath, value any) error {
	if p.schema == "other" {
		return nil
	}
	if p.schema == "enterprise" {
		switch p.attr {
		case "":
			u.EmployeeNumber, u.Department = "", ""
		case "employeenumber":
			u.EmployeeNumber = ""
		case "department":
			u.Department = ""
		}
		return nil
	}
	switch p.attr {
	case "username":
		return &badRequest{"mutability", "userName is required and cannot be removed"}
	case "externalid":
		u.ExternalID = ""
	case "displayname":
		u.DisplayName = ""
	case "active":
		u.Active = false
	case "name":
		switch p.sub {
		case "":
			u.GivenName, u.FamilyName, u.Formatted = "", "", ""
		case "givenname":
			u.GivenName = ""
		case "familyname":
			u.FamilyName = ""
		case "formatted":
			u.Formatted = ""
		}
	case "emails":
		if p.filter == nil && p.sub == "" {
			list, err := asList(value, "emails")
			if err != nil {
				return err
			}
			if list == nil {
				u.Emails = nil
				return nil
			}
			for _, m := range list {
				e, err := parseEmail(m)
				if err != nil {
					return err
				}
				u.Emails = slices.DeleteFunc(u.Emails, func(x Email) bool { return strings.EqualFold(x.Value, e.Value) })
			}
			return nil
		}
		var err error
		u.Emails = slices.DeleteFunc(u.Emails, func(e Email) bool {
			if p.filter == nil {
				return p.sub == "value"
			}
			ok, ferr := matches(p.filter, emailDoc(e), emailAttrs)
			if ferr != nil {
				err = ferr
			}
			return ok && (p.sub == "" || p.sub == "value")
		})
		return err
	}
	return nil
}

// memberIDs reads the member ids of a members value.
func memberIDs(value any) ([]string, error) {
	list, err := asList(value, "members")
	if err != nil {
		return nil, err
	}
	var ids []string
	for _, m := range list {
		v, _ := get(m, "value")
		id, err := asString(v, "members.value")
		if err != nil {
			return nil, err
		}
		if id == "" {
			return nil, invalidValue("a member has no value")
		}
		ids = append(ids, id)
	}
	return ids, nil
}

// setGroup applies an add or a replace of value at p to g.
func setGroup(g *Group, op string, p attrPath, value any) error {
	var err error
	if p.schema != "" {
		return nil
	}
	switch p.attr {
	case "displayname":
		g.DisplayName, err = asString(value, "displayName")
		if err == nil && g.DisplayName == "" {
			err = invalidValue("displayName must not be empty")
		}
	case "externalid":
		g.ExternalID, err = asString(value, "externalId")
	case "members":
		if p.filter != nil || p.sub != "" {
			return &badRequest{"invalidPath", "members can be added or replaced only whole"}
		}
		ids, err := memberIDs(value)
		if err != nil {
			return err
		}
		if op == "replace" {
			g.Members = nil
		}
		g.Members = append(g.Members, ids...)
		slices.Sort(g.Members)
		g.Members = slices.Compact(g.Members)
	}
	return err
}

// removeGroup applies a remove at p to g.
func removeGroup(g *Group, p attrPath, value any) error {
	if p.schema != "" {
		return nil
	}
	switch p.attr {
	case "displayname":
		return &badRequest{"mutability", "displayName is required and cannot be removed"}
	case "externalid":
		g.ExternalID = ""
	case "members":
		switch {
		case p.filter != nil:
			var err error
			g.Members = slices.DeleteFunc(g.Members, func(id string) bool {
				ok, ferr := matches(p.filter, map[string]any{"value": id}, memberAttrs)
				if ferr != nil {
					err = ferr
				}
				return ok
			})
			return err
		case value != nil:
			ids, err := memberIDs(value)
			if err != nil {
				return err
			}
			g.Members = slices.DeleteFunc(g.Members, func(id string) bool { return slices.Contains(ids, id) })
		default:
			g.Members = nil
		}
	}
	return nil
}

// decodeJSON decodes a request body.
func decodeJSON(b []byte) (map[string]any, error) {
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil || m == nil {
		return nil, &badRequest{"invalidSyntax", "the body is not a JSON object"}
	}
	return m, nil
}
