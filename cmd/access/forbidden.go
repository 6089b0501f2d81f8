package main

import (
	"errors"
	"net/url"
	"strings"

	"github.com/access-dev/access"
	"github.com/access-dev/access/internal/apifacts"
)

// permAnnotation is the annotation of an operation's command that holds
// the token's permission it needs (its registry row's perm).
const permAnnotation = "access-permission"

// developerPrefix is where the developer API's routes begin in a URL.
const developerPrefix = "/api/v1/developer"

// operationFor returns the operation of the API a request was (method
// and URL, as an APIError or RequestError gives them): the route of
// internal/apifacts it matches, a literal segment winning over a
// parameter ("/users/search" over "/users/:id").
func operationFor(method, rawURL string) (apifacts.Operation, bool) {
	u, err := url.Parse(rawURL)
	if err != nil {
		return apifacts.Operation{}, false
	}
	// A UniFi OS console's proxy serves the same routes under its own
	// prefix (access.ModeProxy).
	_, rest, found := strings.Cut(u.Path, access.ProxyPrefix)
	if !found {
		if _, rest, found = strings.Cut(u.Path, developerPrefix); !found {
			return apifacts.Operation{}, false
		}
	}
	segs := strings.Split(strings.Trim(rest, "/"), "/")
	var best apifacts.Operation
	bestScore := -1
	for _, o := range apifacts.Operations() {
		if !strings.EqualFold(o.Method, method) {
			continue
		}
		pat := strings.Split(strings.Trim(o.Path, "/"), "/")
		if len(pat) != len(segs) {
			continue
		}
		score := 0
		for j, p := range pat {
			switch {
			case strings.HasPrefix(p, ":") || strings.HasPrefix(p, "{"):
			case p == segs[j]:
				score++
			default:
				score = -1
			}
			if score < 0 {
				break
			}
		}
		if score > bestScore {
			best, bestScore = o, score
		}
	}
	return best, bestScore >= 0
}

// permissionError is a refusal of the token's permission, with the
// permission the refused operation needs.
type permissionError struct {
	err  error
	perm string // "view:space"
	op   string // the vendor's title of the operation, "" when unknown
	// cmdPerm is the permission the command's help names, when the
	// refused request is another's (a name looked up first).
	cmdPerm string
}

func (e *permissionError) Error() string {
	msg := e.err.Error() + " (the token lacks the permission " + e.perm
	if e.op != "" {
		msg += ", which " + e.op + " needs"
	}
	if e.cmdPerm != "" && !strings.Contains(e.cmdPerm, e.perm) {
		msg += "; this command needs " + e.cmdPerm
	}
	return msg + ")"
}

func (e *permissionError) Unwrap() error { return e.err }

// namePermission adds to a refusal of the token's permission (HTTP 403)
// the permission it lacks: that of the refused request's operation (from
// internal/apifacts), or else perm, the command's. Other errors are
// returned as they are.
func namePermission(err error, perm string) error {
	var pe *permissionError
	if err == nil || !permissionRefused(err) || errors.Is(err, access.ErrUnauthorized) || errors.As(err, &pe) {
		return err
	}
	var apiErr *access.APIError
	if errors.As(err, &apiErr) {
		if o, ok := operationFor(apiErr.Method, apiErr.URL); ok {
			return &permissionError{err: err, perm: o.Perm, op: o.Operation, cmdPerm: perm}
		}
	}
	if perm == "" {
		return err
	}
	return &permissionError{err: err, perm: perm}
}
