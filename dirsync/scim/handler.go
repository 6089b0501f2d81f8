package scim

import (
	"crypto/sha256"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/access-dev/access/dirsync"
	filter "github.com/scim2/filter-parser/v2"
)

// Prefix is the path under which a [Handler] serves SCIM.
const Prefix = "/scim/v2"

// DefaultMaxBodyBytes is the largest request body a [Handler] reads when
// [Config] sets none.
const DefaultMaxBodyBytes = 1 << 20

// maxCount is the largest page a list answers.
const maxCount = 1000

// Config is a [Handler]'s settings.
type Config struct {
	// Token is the bearer token a client must send. Read it from a file
	// or the environment ([TokenFromFile], [TokenFromEnv]), never from a
	// flag. It is compared in constant time and never logged.
	Token string
	// MaxBodyBytes bounds a request's body; a larger one is answered 413
	// (default [DefaultMaxBodyBytes]).
	MaxBodyBytes int64
	// Logger logs each request (method, path, status), never its token
	// or body; nil logs nothing.
	Logger *slog.Logger
}

// String returns a description of the settings without the token, so
// that printing a Config does not leak it.
func (c Config) String() string {
	return fmt.Sprintf("scim.Config{Token:[redacted] MaxBodyBytes:%d}", c.MaxBodyBytes)
}

// GoString is String, for %#v.
func (c Config) GoString() string { return c.String() }

// TokenFromFile reads a bearer token from a file, without one trailing
// newline. A file that cannot be read or is empty is a
// [dirsync.ErrConfig]; the error never holds the token.
func TokenFromFile(path string) (string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return "", fmt.Errorf("%w: SCIM token file: %w", dirsync.ErrConfig, err)
	}
	v := strings.TrimSuffix(strings.TrimSuffix(string(b), "\n"), "\r")
	if v == "" {
		return "", fmt.Errorf("%w: SCIM token file %s is empty", dirsync.ErrConfig, path)
	}
	return v, nil
}

// TokenFromEnv reads a bearer token from an environment variable; unset
// or empty is a [dirsync.ErrConfig].
func TokenFromEnv(name string) (string, error) {
	v := os.Getenv(name)
	if v == "" {
		return "", fmt.Errorf("%w: environment variable %s is unset or empty", dirsync.ErrConfig, name)
	}
	return v, nil
}

// A Handler serves SCIM 2.0 (RFC 7643, RFC 7644) under [Prefix]: Users,
// Groups, ServiceProviderConfig, ResourceTypes and Schemas, with filters
// (eq, ne, co, sw, ew, pr, and, or, not on the attributes the schemas
// list), PATCH, PUT and pagination, so that Okta and Microsoft Entra can
// provision users and group memberships into a [Store]. A change is
// answered only once the store has made it durable; one the store could
// not save is answered 503 and not made. Attributes the schemas do not
// list are ignored and never echoed (RFC 7644 §3.3); a user created
// without "active" is active; a DELETE removes the user from its groups
// in the same durable write.
type Handler struct {
	store   *Store
	tokenH  [32]byte
	maxBody int64
	log     *slog.Logger
}

// NewHandler returns a handler serving store. A config without a token
// is a [dirsync.ErrConfig].
func NewHandler(store *Store, cfg Config) (*Handler, error) {
	if cfg.Token == "" {
		return nil, fmt.Errorf("%w: the SCIM server needs a bearer token", dirsync.ErrConfig)
	}
	h := &Handler{store: store, tokenH: sha256.Sum256([]byte(cfg.Token)), maxBody: cfg.MaxBodyBytes, log: cfg.Logger}
	if h.maxBody <= 0 {
		h.maxBody = DefaultMaxBodyBytes
	}
	if h.log == nil {
		h.log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	return h, nil
}

// errStatus is an error answered with its status and scimType.
type errStatus struct {
	status   int
	scimType string
	detail   string
}

func (e *errStatus) Error() string { return e.detail }

func notFound(format string, a ...any) error {
	return &errStatus{status: http.StatusNotFound, detail: fmt.Sprintf(format, a...)}
}

// statusWriter records the status for the log.
type statusWriter struct {
	http.ResponseWriter
	status int
}

func (w *statusWriter) WriteHeader(code int) {
	w.status = code
	w.ResponseWriter.WriteHeader(code)
}

// ServeHTTP serves one SCIM request.
func (h *Handler) ServeHTTP(rw http.ResponseWriter, r *http.Request) {
	w := &statusWriter{ResponseWriter: rw, status: http.StatusOK}
	defer func() {
		h.log.Info("scim request", "method", r.Method, "path", r.URL.Path, "status", w.status)
	}()
	if !h.authorized(r) {
		w.Header().Set("WWW-Authenticate", `Bearer realm="scim"`)
		writeError(w, &errStatus{status: http.StatusUnauthorized, detail: "a valid bearer token is required"})
		return
	}
	rest, ok := strings.CutPrefix(r.URL.Path, Prefix+"/")
	if !ok {
		writeError(w, notFound("%s is not a SCIM endpoint", r.URL.Path))
		return
	}
	kind, id, _ := strings.Cut(strings.TrimSuffix(rest, "/"), "/")
	var body map[string]any
	if r.Method == http.MethodPost || r.Method == http.MethodPut || r.Method == http.MethodPatch {
		var err error
		if body, err = h.readBody(w, r); err != nil {
			writeError(w, err)
			return
		}
	}
	status, v, err := h.route(r, kind, id, body)
	if err != nil {
		writeError(w, err)
		return
	}
	if status == http.StatusNoContent {
		w.WriteHeader(status)
		return
	}
	if doc, ok := v.(map[string]any); ok && status == http.StatusCreated {
		if m, ok := doc["meta"].(map[string]any); ok {
			w.Header().Set("Location", fmt.Sprint(m["location"]))
		}
	}
	writeJSON(w, status, v)
}

func (h *Handler) authorized(r *http.Request) bool {
	scheme, tok, ok := strings.Cut(r.Header.Get("Authorization"), " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return false
	}
	got := sha256.Sum256([]byte(strings.TrimSpace(tok)))
	return subtle.ConstantTimeCompare(got[:], h.tokenH[:]) == 1
}

func (h *Handler) readBody(w http.ResponseWriter, r *http.Request) (map[string]any, error) {
	tooLarge := &errStatus{status: http.StatusRequestEntityTooLarge, detail: fmt.Sprintf("the body is larger than %d bytes", h.maxBody)}
	if r.ContentLength > h.maxBody {
		return nil, tooLarge
	}
	b, err := io.ReadAll(http.MaxBytesReader(w, r.Body, h.maxBody))
	var mbe *http.MaxBytesError
	if errors.As(err, &mbe) {
		return nil, tooLarge
	}
	if err != nil {
		return nil, &errStatus{status: http.StatusBadRequest, scimType: "invalidSyntax", detail: "the body could not be read"}
	}
	return decodeJSON(b)
}

func (h *Handler) route(r *http.Request, kind, id string, body map[string]any) (int, any, error) {
	base := baseURL(r)
	allow := func(methods ...string) error {
		if slices.Contains(methods, r.Method) {
			return nil
		}
		return &errStatus{status: http.StatusMethodNotAllowed, detail: fmt.Sprintf("%s is not allowed on /%s", r.Method, kind)}
	}
	switch kind {
	case "Users", "Groups":
		if id == "" {
			if err := allow(http.MethodGet, http.MethodPost); err != nil {
				return 0, nil, err
			}
			if r.Method == http.MethodGet {
				return h.list(r, kind, base)
			}
			return h.create(kind, body, base)
		}
		switch r.Method {
		case http.MethodGet:
			return h.get(r, kind, id, base)
		case http.MethodPut:
			return h.put(kind, id, body, base)
		case http.MethodPatch:
			return h.patch(kind, id, body, base)
		case http.MethodDelete:
			return h.delete(kind, id)
		}
		return 0, nil, allow()
	case "ServiceProviderConfig":
		if err := allow(http.MethodGet); err != nil {
			return 0, nil, err
		}
		return http.StatusOK, serviceProviderConfig(base), nil
	case "ResourceTypes":
		if err := allow(http.MethodGet); err != nil {
			return 0, nil, err
		}
		return listOrOne(resourceTypes(base), id, "name", "resource type")
	case "Schemas":
		if err := allow(http.MethodGet); err != nil {
			return 0, nil, err
		}
		return listOrOne(schemas(base), id, "id", "schema")
	case "Bulk", "Me":
		return 0, nil, &errStatus{status: http.StatusNotImplemented, detail: "/" + kind + " is not supported"}
	}
	return 0, nil, notFound("/%s is not a SCIM resource", kind)
}

func listOrOne(all []map[string]any, id, key, what string) (int, any, error) {
	if id == "" {
		res := make([]any, len(all))
		for i, m := range all {
			res[i] = m
		}
		return http.StatusOK, listResponse(res, len(all), 1), nil
	}
	for _, m := range all {
		if m[key] == id {
			return http.StatusOK, m, nil
		}
	}
	return 0, nil, notFound("no %s %s", what, id)
}

func listResponse(res []any, total, start int) map[string]any {
	if res == nil {
		res = []any{}
	}
	return map[string]any{
		"schemas": []string{listSchema}, "totalResults": total, "startIndex": start,
		"itemsPerPage": len(res), "Resources": res,
	}
}

func baseURL(r *http.Request) string {
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	return scheme + "://" + r.Host + Prefix
}

func (h *Handler) list(r *http.Request, kind, base string) (int, any, error) {
	q := r.URL.Query()
	start, err := intParam(q.Get("startIndex"), 1, "startIndex")
	if err != nil {
		return 0, nil, err
	}
	start = max(start, 1)
	count, err := intParam(q.Get("count"), 100, "count")
	if err != nil {
		return 0, nil, err
	}
	count = min(max(count, 0), maxCount)
	known, core := userAttrs, UserSchema
	if kind == "Groups" {
		known, core = groupAttrs, GroupSchema
	}
	var expr filter.Expression
	if f := q.Get("filter"); f != "" {
		if expr, err = parseFilter(f, known, core); err != nil {
			return 0, nil, err
		}
	}
	h.store.mu.Lock()
	docs := h.store.docs(kind, base)
	h.store.mu.Unlock()
	var hits []map[string]any
	for _, d := range docs {
		if expr != nil {
			ok, err := matches(expr, d, known)
			if err != nil {
				return 0, nil, err
			}
			if !ok {
				continue
			}
		}
		hits = append(hits, d)
	}
	var page []any
	for i := start - 1; i < len(hits) && len(page) < count; i++ {
		page = append(page, project(hits[i], q))
	}
	return http.StatusOK, listResponse(page, len(hits), start), nil
}

func intParam(s string, def int, name string) (int, error) {
	if s == "" {
		return def, nil
	}
	n, err := strconv.Atoi(s)
	if err != nil {
		return 0, invalidValue("%s must be an integer", name)
	}
	return n, nil
}

// project keeps the attributes the query's attributes names, or drops
// those its excludedAttributes names; id and schemas are always kept.
func project(doc map[string]any, q map[string][]string) map[string]any {
	top := func(list string) []string {
		var out []string
		for _, a := range strings.Split(list, ",") {
			a = strings.TrimSpace(a)
			if a == "" {
				continue
			}
			if len(a) > len(EnterpriseSchema) && strings.EqualFold(a[:len(EnterpriseSchema)], EnterpriseSchema) {
				a = EnterpriseSchema
			} else if i := strings.LastIndex(a, ":"); i >= 0 {
				a = a[i+1:]
			}
			a, _, _ = strings.Cut(a, ".")
			out = append(out, strings.ToLower(a))
		}
		return out
	}
	attrs, excluded := top(strings.Join(q["attributes"], ",")), top(strings.Join(q["excludedAttributes"], ","))
	if len(attrs) == 0 && len(excluded) == 0 {
		return doc
	}
	out := map[string]any{}
	for k, v := range doc {
		lk := strings.ToLower(k)
		keep := lk == "id" || lk == "schemas" ||
			(len(attrs) > 0 && slices.Contains(attrs, lk)) ||
			(len(attrs) == 0 && !slices.Contains(excluded, lk))
		if keep {
			out[k] = v
		}
	}
	return out
}

func (h *Handler) get(r *http.Request, kind, id, base string) (int, any, error) {
	h.store.mu.Lock()
	defer h.store.mu.Unlock()
	if kind == "Users" {
		u, ok := h.store.users[id]
		if !ok {
			return 0, nil, notFound("no user %s", id)
		}
		return http.StatusOK, project(h.store.userDoc(u, base), r.URL.Query()), nil
	}
	g, ok := h.store.groups[id]
	if !ok {
		return 0, nil, notFound("no group %s", id)
	}
	return http.StatusOK, project(h.store.groupDoc(g, base), r.URL.Query()), nil
}

// fill applies a POST's or PUT's body, attribute by attribute.
func fill(body map[string]any, set func(p attrPath, v any) error, core string) error {
	for k, v := range body {
		switch strings.ToLower(k) {
		case "schemas", "id", "meta", "groups":
			continue // read-only here
		}
		p, err := parsePath(k, core)
		if err != nil {
			continue // not an attribute name: ignored, as unknown attributes are
		}
		if p.filter != nil {
			continue
		}
		if err := set(p, v); err != nil {
			return err
		}
	}
	return nil
}

func (h *Handler) create(kind string, body map[string]any, base string) (int, any, error) {
	s := h.store
	s.mu.Lock()
	defer s.mu.Unlock()
	now := s.now().UTC()
	if kind == "Users" {
		u := &User{Active: true}
		if err := fill(body, func(p attrPath, v any) error { return setUser(u, "replace", p, v) }, UserSchema); err != nil {
			return 0, nil, err
		}
		if err := s.checkUser(u); err != nil {
			return 0, nil, err
		}
		u.ID, u.Created, u.Modified, u.Seq = s.newID(), now, now, s.seq+1
		if err := s.commit(change{PutUser: u}); err != nil {
			return 0, nil, err
		}
		return http.StatusCreated, s.userDoc(u, base), nil
	}
	g := &Group{}
	if err := fill(body, func(p attrPath, v any) error { return setGroup(g, "replace", p, v) }, GroupSchema); err != nil {
		return 0, nil, err
	}
	if err := s.checkGroup(g); err != nil {
		return 0, nil, err
	}
	g.ID, g.Created, g.Modified, g.Seq = s.newID(), now, now, s.seq+1
	if err := s.commit(change{PutGroup: g}); err != nil {
		return 0, nil, err
	}
	return http.StatusCreated, s.groupDoc(g, base), nil
}

func (h *Handler) put(kind, id string, body map[string]any, base string) (int, any, error) {
	s := h.store
	s.mu.Lock()
	defer s.mu.Unlock()
	now := s.now().UTC()
	if kind == "Users" {
		old, ok := s.users[id]
		if !ok {
			return 0, nil, notFound("no user %s", id)
		}
		u := &User{Active: true, ID: id, Created: old.Created, Seq: old.Seq}
		if err := fill(body, func(p attrPath, v any) error { return setUser(u, "replace", p, v) }, UserSchema); err != nil {
			return 0, nil, err
		}
		return s.saveUser(u, now, base)
	}
	old, ok := s.groups[id]
	if !ok {
		return 0, nil, notFound("no group %s", id)
	}
	g := &Group{ID: id, Created: old.Created, Seq: old.Seq}
	if err := fill(body, func(p attrPath, v any) error { return setGroup(g, "replace", p, v) }, GroupSchema); err != nil {
		return 0, nil, err
	}
	return s.saveGroup(g, now, base)
}

func (s *Store) saveUser(u *User, now time.Time, base string) (int, any, error) {
	if err := s.checkUser(u); err != nil {
		return 0, nil, err
	}
	u.Modified = now
	if err := s.commit(change{PutUser: u}); err != nil {
		return 0, nil, err
	}
	return http.StatusOK, s.userDoc(u, base), nil
}

func (s *Store) saveGroup(g *Group, now time.Time, base string) (int, any, error) {
	if err := s.checkGroup(g); err != nil {
		return 0, nil, err
	}
	g.Modified = now
	if err := s.commit(change{PutGroup: g}); err != nil {
		return 0, nil, err
	}
	return http.StatusOK, s.groupDoc(g, base), nil
}

// checkUser refuses a user without userName or whose userName another
// user has (409 uniqueness).
func (s *Store) checkUser(u *User) error {
	if u.UserName == "" {
		return invalidValue("userName is required")
	}
	for _, o := range s.users {
		if o.ID != u.ID && strings.EqualFold(o.UserName, u.UserName) {
			return &errStatus{status: http.StatusConflict, scimType: "uniqueness", detail: fmt.Sprintf("userName %q is taken", u.UserName)}
		}
	}
	return nil
}

// checkGroup refuses a group without displayName or with a member that
// is no user.
func (s *Store) checkGroup(g *Group) error {
	if g.DisplayName == "" {
		return invalidValue("displayName is required")
	}
	for _, m := range g.Members {
		if _, ok := s.users[m]; !ok {
			return invalidValue("member %q is no user", m)
		}
	}
	return nil
}

type patchOp struct {
	op    string
	path  string
	value any
}

func patchOps(body map[string]any) ([]patchOp, error) {
	v, _ := get(body, "Operations")
	list, ok := v.([]any)
	if !ok || len(list) == 0 {
		return nil, &badRequest{"invalidSyntax", "a PATCH needs a list of Operations"}
	}
	var ops []patchOp
	for _, e := range list {
		m, ok := e.(map[string]any)
		if !ok {
			return nil, &badRequest{"invalidSyntax", "an operation must be an object"}
		}
		opv, _ := get(m, "op")
		op, _ := opv.(string)
		op = strings.ToLower(op)
		if op != "add" && op != "replace" && op != "remove" {
			return nil, &badRequest{"invalidSyntax", fmt.Sprintf("op %q is not add, replace or remove", opv)}
		}
		pv, _ := get(m, "path")
		path, _ := pv.(string)
		value, _ := get(m, "value")
		ops = append(ops, patchOp{op, path, value})
	}
	return ops, nil
}

// applyOps applies PATCH operations through set and remove. An operation
// without path takes an object whose keys are paths (RFC 7644 §3.5.2.1
// and §3.5.2.3; Entra sends "name.givenName" keys).
func applyOps(ops []patchOp, core string, set func(op string, p attrPath, v any) error, remove func(p attrPath, v any) error) error {
	for _, o := range ops {
		if o.path == "" {
			if o.op == "remove" {
				return &badRequest{"noTarget", "a remove needs a path"}
			}
			m, ok := o.value.(map[string]any)
			if !ok {
				return invalidValue("an operation without path needs an object value")
			}
			for k, v := range m {
				if strings.EqualFold(k, "schemas") || strings.EqualFold(k, "id") || strings.EqualFold(k, "meta") {
					continue
				}
				p, err := parsePath(k, core)
				if err != nil {
					return err
				}
				if err := set(o.op, p, v); err != nil {
					return err
				}
			}
			continue
		}
		p, err := parsePath(o.path, core)
		if err != nil {
			return err
		}
		if o.op == "remove" {
			err = remove(p, o.value)
		} else {
			err = set(o.op, p, o.value)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

func (h *Handler) patch(kind, id string, body map[string]any, base string) (int, any, error) {
	ops, err := patchOps(body)
	if err != nil {
		return 0, nil, err
	}
	s := h.store
	s.mu.Lock()
	defer s.mu.Unlock()
	now := s.now().UTC()
	if kind == "Users" {
		old, ok := s.users[id]
		if !ok {
			return 0, nil, notFound("no user %s", id)
		}
		u := *old
		u.Emails = slices.Clone(old.Emails)
		err := applyOps(ops, UserSchema,
			func(op string, p attrPath, v any) error { return setUser(&u, op, p, v) },
			func(p attrPath, v any) error { return removeUser(&u, p, v) })
		if err != nil {
			return 0, nil, err
		}
		return s.saveUser(&u, now, base)
	}
	old, ok := s.groups[id]
	if !ok {
		return 0, nil, notFound("no group %s", id)
	}
	g := *old
	g.Members = slices.Clone(old.Members)
	err = applyOps(ops, GroupSchema,
		func(op string, p attrPath, v any) error { return setGroup(&g, op, p, v) },
		func(p attrPath, v any) error { return removeGroup(&g, p, v) })
	if err != nil {
		return 0, nil, err
	}
	return s.saveGroup(&g, now, base)
}

func (h *Handler) delete(kind, id string) (int, any, error) {
	s := h.store
	s.mu.Lock()
	defer s.mu.Unlock()
	if kind == "Groups" {
		if _, ok := s.groups[id]; !ok {
			return 0, nil, notFound("no group %s", id)
		}
		if err := s.commit(change{DelGroup: id}); err != nil {
			return 0, nil, err
		}
		return http.StatusNoContent, nil, nil
	}
	if _, ok := s.users[id]; !ok {
		return 0, nil, notFound("no user %s", id)
	}
	// The user leaves the groups too, in the same durable write.
	cs := []change{{DelUser: id}}
	now := s.now().UTC()
	for _, g := range s.sortedGroups() {
		if slices.Contains(g.Members, id) {
			ng := *g
			ng.Members = slices.DeleteFunc(slices.Clone(g.Members), func(m string) bool { return m == id })
			ng.Modified = now
			cs = append(cs, change{PutGroup: &ng})
		}
	}
	if err := s.commit(cs...); err != nil {
		return 0, nil, err
	}
	return http.StatusNoContent, nil, nil
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		status = http.StatusInternalServerError
		b = []byte(`{"schemas":["` + errorSchema + `"],"status":"500"}`)
	}
	w.Header().Set("Content-Type", "application/scim+json")
	w.WriteHeader(status)
	_, _ = w.Write(append(b, '\n'))
}

// writeError answers err as a SCIM error (RFC 7644 §3.12): a 400 with
// its scimType, a status of its own, or 503 for a change the store could
// not save.
func writeError(w http.ResponseWriter, err error) {
	var br *badRequest
	var es *errStatus
	e := &errStatus{status: http.StatusInternalServerError, detail: "internal error"}
	switch {
	case errors.As(err, &br):
		e = &errStatus{status: http.StatusBadRequest, scimType: br.scimType, detail: br.detail}
	case errors.As(err, &es):
		e = es
	case errors.Is(err, ErrStore):
		e = &errStatus{status: http.StatusServiceUnavailable, detail: "the change could not be saved; it was not made, try again"}
	}
	doc := map[string]any{"schemas": []string{errorSchema}, "status": strconv.Itoa(e.status), "detail": e.detail}
	if e.scimType != "" {
		doc["scimType"] = e.scimType
	}
	writeJSON(w, e.status, doc)
}
