package scim

import (
	"time"
)

func meta(kind, id, base string, created, modified time.Time) map[string]any {
	return map[string]any{
		"resourceType": kind, "location": base + "/" + kind + "s/" + id,
		"created": created.UTC().Format(time.RFC3339), "lastModified": modified.UTC().Format(time.RFC3339),
	}
}

// userDoc is u's SCIM representation; the store's lock is held.
func (s *Store) userDoc(u *User, base string) map[string]any {
	d := map[string]any{
		"schemas":  []any{UserSchema, EnterpriseSchema},
		"id":       u.ID,
		"userName": u.UserName,
		"active":   u.Active,
		"meta":     meta("User", u.ID, base, u.Created, u.Modified),
	}
	if u.ExternalID != "" {
		d["externalId"] = u.ExternalID
	}
	if u.DisplayName != "" {
		d["displayName"] = u.DisplayName
	}
	name := map[string]any{}
	for k, v := range map[string]string{"givenName": u.GivenName, "familyName": u.FamilyName, "formatted": u.Formatted} {
		if v != "" {
			name[k] = v
		}
	}
	if len(name) > 0 {
		d["name"] = name
	}
	if len(u.Emails) > 0 {
		var es []any
		for _, e := range u.Emails {
			es = append(es, emailDoc(e))
		}
		d["emails"] = es
	}
	ent := map[string]any{}
	if u.EmployeeNumber != "" {
		ent["employeeNumber"] = u.EmployeeNumber
	}
	if u.Department != "" {
		ent["department"] = u.Department
	}
	d[EnterpriseSchema] = ent
	var groups []any
	for _, g := range s.sortedGroups() {
		for _, m := range g.Members {
			if m == u.ID {
				groups = append(groups, map[string]any{"value": g.ID, "display": g.DisplayName, "$ref": base + "/Groups/" + g.ID})
			}
		}
	}
	if groups != nil {
		d["groups"] = groups
	}
	return d
}

// groupDoc is g's SCIM representation; the store's lock is held.
func (s *Store) groupDoc(g *Group, base string) map[string]any {
	members := []any{}
	for _, m := range g.Members {
		e := map[string]any{"value": m, "type": "User", "$ref": base + "/Users/" + m}
		if u, ok := s.users[m]; ok {
			e["display"] = u.UserName
		}
		members = append(members, e)
	}
	d := map[string]any{
		"schemas":     []any{GroupSchema},
		"id":          g.ID,
		"displayName": g.DisplayName,
		"members":     members,
		"meta":        meta("Group", g.ID, base, g.Created, g.Modified),
	}
	if g.ExternalID != "" {
		d["externalId"] = g.ExternalID
	}
	return d
}

// docs are the representations of the users or groups, in creation
// order; the store's lock is held.
func (s *Store) docs(kind, base string) []map[string]any {
	var out []map[string]any
	if kind == "Users" {
		for _, u := range s.sortedUsers() {
			out = append(out, s.userDoc(u, base))
		}
		return out
	}
	for _, g := range s.sortedGroups() {
		out = append(out, s.groupDoc(g, base))
	}
	return out
}

func serviceProviderConfig(base string) map[string]any {
	return map[string]any{
		"schemas":          []string{"urn:ietf:params:scim:schemas:core:2.0:ServiceProviderConfig"},
		"documentationUri": "https://github.com/access-dev/access/blob/main/docs/sync.md",
		"patch":            map[string]any{"supported": true},
		"bulk":             map[string]any{"supported": false, "maxOperations": 0, "maxPayloadSize": 0},
		"filter":           map[string]any{"supported": true, "maxResults": maxCount},
		"changePassword":   map[string]any{"supported": false},
		"sort":             map[string]any{"supported": false},
		"etag":             map[string]any{"supported": false},
		"authenticationSchemes": []any{map[string]any{
			"type": "oauthbearertoken", "name": "OAuth Bearer Token", "primary": true,
			"description": "Authentication with a bearer token in the Authorization header",
		}},
		"meta": map[string]any{"resourceType": "ServiceProviderConfig", "location": base + "/ServiceProviderConfig"},
	}
}

func resourceTypes(base string) []map[string]any {
	rt := func(name, endpoint, schema string, ext []any) map[string]any {
		m := map[string]any{
			"schemas": []string{"urn:ietf:params:scim:schemas:core:2.0:ResourceType"},
			"id":      name, "name": name, "endpoint": endpoint, "schema": schema,
			"meta": map[string]any{"resourceType": "ResourceType", "location": base + "/ResourceTypes/" + name},
		}
		if ext != nil {
			m["schemaExtensions"] = ext
		}
		return m
	}
	return []map[string]any{
		rt("User", "/Users", UserSchema, []any{map[string]any{"schema": EnterpriseSchema, "required": false}}),
		rt("Group", "/Groups", GroupSchema, nil),
	}
}

// attr describes one attribute for /Schemas.
func attr(name, typ string, multi, required, caseExact bool, mutability, uniqueness string, subs ...map[string]any) map[string]any {
	m := map[string]any{
		"name": name, "type": typ, "multiValued": multi, "required": required, "caseExact": caseExact,
		"mutability": mutability, "returned": "default", "uniqueness": uniqueness,
	}
	if subs != nil {
		m["subAttributes"] = subs
	}
	return m
}

func schemas(base string) []map[string]any {
	sch := func(id, name string, attrs ...map[string]any) map[string]any {
		return map[string]any{
			"schemas": []string{"urn:ietf:params:scim:schemas:core:2.0:Schema"},
			"id":      id, "name": name, "attributes": attrs,
			"meta": map[string]any{"resourceType": "Schema", "location": base + "/Schemas/" + id},
		}
	}
	rw, ro := "readWrite", "readOnly"
	str := func(name string) map[string]any { return attr(name, "string", false, false, false, rw, "none") }
	return []map[string]any{
		sch(UserSchema, "User",
			attr("userName", "string", false, true, false, rw, "server"),
			attr("externalId", "string", false, false, true, rw, "none"),
			attr("name", "complex", false, false, false, rw, "none", str("givenName"), str("familyName"), str("formatted")),
			str("displayName"),
			attr("emails", "complex", true, false, false, rw, "none", str("value"), str("type"), attr("primary", "boolean", false, false, false, rw, "none")),
			attr("active", "boolean", false, false, false, rw, "none"),
			attr("groups", "complex", true, false, false, ro, "none", attr("value", "string", false, false, true, ro, "none"), attr("display", "string", false, false, false, ro, "none")),
		),
		sch(GroupSchema, "Group",
			attr("displayName", "string", false, true, false, rw, "none"),
			attr("externalId", "string", false, false, true, rw, "none"),
			attr("members", "complex", true, false, false, rw, "none", attr("value", "string", false, false, true, "immutable", "none"), attr("display", "string", false, false, false, ro, "none")),
		),
		sch(EnterpriseSchema, "EnterpriseUser",
			attr("employeeNumber", "string", false, false, true, rw, "none"),
			str("department"),
		),
	}
}
