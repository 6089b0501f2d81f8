package accesstest

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math/big"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/access-dev/access"
)

// Credentials: PIN codes, the NFC and PIN assignments of users and
// visitors, and touch passes.
//
// Ownership is read from the holders' records: a user's or visitor's
// NFCCards and PINCode are the truth, so a token or PIN belongs to at most
// one holder, and removing a user or visitor frees its cards and PIN with
// nothing else to do. Touch passes are records of their own that name
// their user (UserID); the user's embedded TouchPass is kept in step by
// syncPass. When a user is deleted, call s.releaseUserCredentials(id)
// under s.mu so that their touch pass becomes assignable again.

// PINLength is the number of digits of generated PINs.
const PINLength = 6

// The credential operations.
const (
	OpPINCodesGenerate            Op = "PINCodes.Generate"
	OpUsersAssignNFCCard          Op = "Users.AssignNFCCard"
	OpUsersUnassignNFCCard        Op = "Users.UnassignNFCCard"
	OpUsersAssignPINCode          Op = "Users.AssignPINCode"
	OpUsersUnassignPINCode        Op = "Users.UnassignPINCode"
	OpUsersAssignTouchPass        Op = "Users.AssignTouchPass"
	OpUsersUnassignTouchPass      Op = "Users.UnassignTouchPass"
	OpUsersBatchAssignTouchPasses Op = "Users.BatchAssignTouchPasses"
	OpTouchPassesList             Op = "TouchPasses.List"
	OpTouchPassesListAssignable   Op = "TouchPasses.ListAssignable"
	OpTouchPassesGet              Op = "TouchPasses.Get"
	OpTouchPassesUpdate           Op = "TouchPasses.Update"
)

// credState is the credential side of the store.
type credState struct {
	touchPasses table[access.TouchPass, touchPassID]
	cards       table[cardRec, cardKey] // nfc.go: the card list, by token
	holders     map[string]cardHolder   // nfc.go: who holds a card, by token
	sessions    map[string]*sessionRec  // nfc.go: enrollment sessions by id
	generated   map[string]bool         // PINs handed out by Generate, not yet assigned
	visitTimers map[string][]*timer     // visitors.go: status timers by visitor id
	qr          map[string]bool         // visitors holding a QR code
}

// cr returns the credential state, making its maps. The caller holds s.mu.
func (s *Server) cr() *credState {
	c := &s.creds
	if c.sessions == nil {
		c.sessions = map[string]*sessionRec{}
		c.holders = map[string]cardHolder{}
		c.generated = map[string]bool{}
		c.visitTimers = map[string][]*timer{}
		c.qr = map[string]bool{}
	}
	return c
}

// ---- PIN codes ----

// pinHash is the token a controller reports for a PIN.
func pinHash(pin string) string {
	sum := sha256.Sum256([]byte("accesstest-pin:" + pin))
	return hex.EncodeToString(sum[:])
}

// pinHolder returns the id of the user or visitor whose PIN hashes to
// token, or "". The caller holds s.mu.
func (s *Server) pinHolder(token string) string {
	for _, u := range s.people.users.list {
		if u.PINCode != nil && u.PINCode.Token == token {
			return u.ID
		}
	}
	for _, v := range s.people.visitors.list {
		if v.PINCode != nil && v.PINCode.Token == token {
			return v.ID
		}
	}
	return ""
}

// PINHolder returns the id of the user or visitor holding pin, or "".
func (s *Server) PINHolder(pin string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.pinHolder(pinHash(pin))
}

// PINToken returns the token (hash) the server reports for pin.
func PINToken(pin string) string { return pinHash(pin) }

func (s *Server) generatePIN(w http.ResponseWriter, _ *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.mu.touch()
	c := s.cr()
	limit := big.NewInt(1)
	for range PINLength {
		limit.Mul(limit, big.NewInt(10))
	}
	for range 1000 {
		n, err := rand.Int(rand.Reader, limit)
		if err != nil {
			break
		}
		pin := fmt.Sprintf("%0*d", PINLength, n)
		if c.generated[pin] || s.pinHolder(pinHash(pin)) != "" {
			continue
		}
		c.generated[pin] = true
		writeData(w, pin)
		return
	}
	writeError(w, http.StatusInternalServerError, access.CodeSystemError, "No free PIN code.")
}

// assignPIN gives a holder a PIN; it answers the request. The caller holds
// s.mu.
func (s *Server) assignPIN(w http.ResponseWriter, r *http.Request, holderID string, set func(*access.PINCode)) {
	var req struct {
		PINCode string `json:"pin_code"`
	}
	if err := decodeBody(r, &req); err != nil || req.PINCode == "" {
		badParams(w, "pin_code is required.")
		return
	}
	if len(req.PINCode) < 4 || len(req.PINCode) > 12 || strings.Trim(req.PINCode, "0123456789") != "" {
		writeError(w, http.StatusBadRequest, access.CodeCredsPINCodeCredsLengthInvalid, "The PIN code length does not meet the preset requirements.")
		return
	}
	token := pinHash(req.PINCode)
	if h := s.pinHolder(token); h != "" && h != holderID {
		writeError(w, http.StatusBadRequest, access.CodeCredsPINCodeCredsAlreadyExist, "The PIN code already exists.")
		return
	}
	delete(s.cr().generated, req.PINCode)
	set(&access.PINCode{Token: token})
	writeSuccess(w)
}

func (s *Server) assignUserPIN(w http.ResponseWriter, r *http.Request) {
	s.withUser(w, r, func(u *access.User) {
		s.mu.touch()
		s.assignPIN(w, r, u.ID, func(p *access.PINCode) { u.PINCode = p })
	})
}

func (s *Server) unassignUserPIN(w http.ResponseWriter, r *http.Request) {
	s.withUser(w, r, func(u *access.User) {
		s.mu.touch()
		u.PINCode = nil
		writeSuccess(w)
	})
}

func (s *Server) assignVisitorPIN(w http.ResponseWriter, r *http.Request) {
	s.withVisitor(w, r, func(v *access.Visitor) {
		s.mu.touch()
		s.assignPIN(w, r, v.ID, func(p *access.PINCode) { v.PINCode = p })
	})
}

func (s *Server) unassignVisitorPIN(w http.ResponseWriter, r *http.Request) {
	s.withVisitor(w, r, func(v *access.Visitor) {
		s.mu.touch()
		v.PINCode = nil
		writeSuccess(w)
	})
}

// ---- NFC card assignments ----

// nfcBody is the body of the assign and unassign calls.
type nfcBody struct {
	Token    string `json:"token"`
	ForceAdd bool   `json:"force_add"`
}

func readNFCBody(w http.ResponseWriter, r *http.Request) (nfcBody, bool) {
	var b nfcBody
	if err := decodeBody(r, &b); err != nil || strings.TrimSpace(b.Token) == "" {
		badParams(w, "token is required.")
		return b, false
	}
	return b, true
}

// assignNFC gives the holder (a user or visitor, by id) the card; cards
// is the holder's list. It answers the request. The caller holds s.mu.
func (s *Server) assignNFC(w http.ResponseWriter, b nfcBody, holderID string, visitor bool, cards *[]access.NFCCard) {
	rec := s.card(b.Token)
	if rec == nil {
		writeError(w, http.StatusBadRequest, access.CodeResourceNotFound, "The NFC card does not exist.")
		return
	}
	if h, _ := s.nfcHolder(b.Token); h != "" && h != holderID {
		if !b.ForceAdd {
			writeError(w, http.StatusBadRequest, access.CodeCredsNFCHasBindUser, "The NFC card is already registered and assigned to another user.")
			return
		}
		s.releaseNFC(b.Token)
	}
	if !slices.ContainsFunc(*cards, func(c access.NFCCard) bool { return c.Token == b.Token }) {
		*cards = append(*cards, access.NFCCard{ID: rec.DisplayID, Token: b.Token, Type: rec.CardType})
	}
	s.cr().holders[b.Token] = cardHolder{id: holderID, visitor: visitor}
	writeSuccess(w)
}

func unassignNFC(w http.ResponseWriter, token string, cards *[]access.NFCCard) {
	i := slices.IndexFunc(*cards, func(c access.NFCCard) bool { return c.Token == token })
	if i < 0 {
		writeError(w, http.StatusBadRequest, access.CodeResourceNotFound, "The NFC card is not assigned here.")
		return
	}
	*cards = slices.Delete(*cards, i, i+1)
	writeSuccess(w)
}

func (s *Server) assignUserNFC(w http.ResponseWriter, r *http.Request) {
	b, ok := readNFCBody(w, r)
	if !ok {
		return
	}
	s.withUser(w, r, func(u *access.User) {
		s.mu.touch()
		s.assignNFC(w, b, u.ID, false, &u.NFCCards)
	})
}

func (s *Server) unassignUserNFC(w http.ResponseWriter, r *http.Request) {
	b, ok := readNFCBody(w, r)
	if !ok {
		return
	}
	s.withUser(w, r, func(u *access.User) {
		s.mu.touch()
		unassignNFC(w, b.Token, &u.NFCCards)
	})
}

func (s *Server) assignVisitorNFC(w http.ResponseWriter, r *http.Request) {
	b, ok := readNFCBody(w, r)
	if !ok {
		return
	}
	s.withVisitor(w, r, func(v *access.Visitor) { s.mu.touch(); s.assignNFC(w, b, v.ID, true, &v.NFCCards) })
}

func (s *Server) unassignVisitorNFC(w http.ResponseWriter, r *http.Request) {
	b, ok := readNFCBody(w, r)
	if !ok {
		return
	}
	s.withVisitor(w, r, func(v *access.Visitor) { s.mu.touch(); unassignNFC(w, b.Token, &v.NFCCards) })
}

// ---- touch passes ----

// AddTouchPass stores a touch pass; an empty ID gets a UUID, an empty
// CardID a random one and an empty Status ACTIVE.
func (s *Server) AddTouchPass(tp access.TouchPass) access.TouchPass {
	return addRecord(s, "AddTouchPass", "id", tp,
		func(tp *access.TouchPass) string {
			if tp.ID == "" {
				tp.ID = s.newID()
			}
			if tp.CardID == "" {
				tp.CardID = s.newCardID()
			}
			if tp.Status == "" {
				tp.Status = access.TouchPassActive
			}
			if tp.Bundles == nil {
				tp.Bundles = []access.TouchPassBundle{}
			}
			return tp.ID
		},
		func(tp *access.TouchPass) bool { return s.creds.touchPasses.has(tp.ID) },
		s.creds.touchPasses.add)
}

// TouchPasses returns every touch pass, purchased ones included.
func (s *Server) TouchPasses() []access.TouchPass {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]access.TouchPass, s.creds.touchPasses.len())
	for i, tp := range s.creds.touchPasses.list {
		out[i] = clone(*tp)
	}
	return out
}

func (s *Server) newCardID() string {
	h := strings.ToUpper(s.randomHex(8))
	return h[:4] + "-" + h[4:8] + "-" + h[8:12] + "-" + h[12:]
}

// purchaseTouchPasses buys count INACTIVE passes. One pass is answered as
// one object, as the vendor's sample shows; several as an array (the
// vendor's OpenAPI file), since one object cannot carry them.
func (s *Server) purchaseTouchPasses(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Count json.RawMessage `json:"count"`
	}
	if err := decodeBody(r, &req); err != nil {
		badParams(w, "Body must be an object with count.")
		return
	}
	n, err := strconv.Atoi(string(req.Count))
	if err != nil || n < 1 || n > maxPurchase {
		badParams(w, fmt.Sprintf("count must be an integer from 1 to %d.", maxPurchase))
		return
	}
	s.mu.Lock()
	s.mu.touch()
	now := s.clockNow()
	out := make([]access.TouchPass, n)
	for i := range out {
		tp := &access.TouchPass{ID: s.newID(), CardID: s.newCardID(), Status: access.TouchPassInactive,
			LastActivity: access.DateTime(now.Format(time.RFC3339)), Bundles: []access.TouchPassBundle{}}
		s.creds.touchPasses.add(tp)
		out[i] = clone(*tp)
	}
	s.mu.Unlock()
	if len(out) == 1 {
		writeData(w, out[0]) // the vendor's sample: one object
		return
	}
	writeData(w, out)
}

func (s *Server) searchTouchPasses(w http.ResponseWriter, r *http.Request) {
	cond := strings.ToLower(strings.TrimSpace(r.URL.Query().Get("condition")))
	if cond == "" {
		badParams(w, "condition is required.")
		return
	}
	s.mu.Lock()
	out := []access.TouchPass{}
	for _, tp := range s.creds.touchPasses.list {
		if strings.Contains(strings.ToLower(tp.CardID), cond) || strings.Contains(strings.ToLower(tp.UserName), cond) {
			out = append(out, clone(*tp))
		}
	}
	s.mu.Unlock()
	writeData(w, out)
}

// touchPass finds a pass. The caller holds s.mu.
func (s *Server) touchPass(id string) *access.TouchPass { return s.creds.touchPasses.get(id) }

// syncPass copies a pass into its user's record (the user's touch_pass),
// or removes it from userID's record when the pass no longer names them.
// The caller holds s.mu.
func (s *Server) syncPass(tp *access.TouchPass, userID string) {
	if u := s.user(userID); u != nil {
		if tp.UserID == userID {
			u.TouchPass = access.TouchPasses{clone(*tp)}
		} else {
			u.TouchPass = nil
		}
	}
}

// releaseUserCredentials frees what a user held outside their own
// record: their touch pass goes back to the assignable ones (SUSPENDED if
// it was in a wallet, else INACTIVE). Call it, under s.mu, when a user is
// deleted; their NFC cards and PIN are freed with the record.
func (s *Server) releaseUserCredentials(userID string) {
	for _, tp := range s.creds.touchPasses.list {
		if tp.UserID == userID {
			s.unlinkPass(tp)
		}
	}
}

// unlinkPass clears a pass's user. The caller holds s.mu.
func (s *Server) unlinkPass(tp *access.TouchPass) {
	tp.Status = access.TouchPassInactive
	if len(tp.Bundles) > 0 {
		tp.Status = access.TouchPassSuspended
	}
	tp.UserID, tp.UserName, tp.UserEmail, tp.UserAvatar, tp.UserStatus = "", "", "", "", ""
	tp.LastActivity = access.DateTime(s.clockNow().Format(time.RFC3339))
}

func assignable(tp *access.TouchPass) bool {
	return tp.UserID == "" && (tp.Status == access.TouchPassSuspended || tp.Status == access.TouchPassInactive)
}

// linkPass gives an assignable pass to a user: PENDING until the user
// adds it to a wallet ([Server.AddToWallet]). The caller holds s.mu.
func (s *Server) linkPass(tp *access.TouchPass, u *access.User, email string) {
	name := u.FullName
	if name == "" {
		name = strings.TrimSpace(u.FirstName + " " + u.LastName)
	}
	if email == "" {
		email = u.UserEmail
	}
	tp.Status, tp.UserID, tp.UserName, tp.UserEmail, tp.UserStatus = access.TouchPassPending, u.ID, name, email, string(u.Status)
	// The previous holder's wallets are not the new one's.
	tp.Bundles = []access.TouchPassBundle{}
	tp.LastActivity = access.DateTime(s.clockNow().Format(time.RFC3339))
	s.syncPass(tp, u.ID)
}

func touchPassNotFound(w http.ResponseWriter) {
	writeError(w, http.StatusBadRequest, access.CodeResourceNotFound, "The touch pass does not exist.")
}

func (s *Server) assignUserTouchPass(w http.ResponseWriter, r *http.Request) {
	s.withUser(w, r, func(u *access.User) {
		s.mu.touch()
		tp := s.touchPass(r.PathValue("tp"))
		switch {
		case tp == nil:
			touchPassNotFound(w)
			return
		case tp.UserID == u.ID:
			writeData(w, clone(*tp))
			return
		case !assignable(tp):
			operationForbidden(w, "The touch pass is not assignable.")
			return
		case slices.ContainsFunc(s.creds.touchPasses.list, func(x *access.TouchPass) bool { return x.UserID == u.ID }):
			operationForbidden(w, "A user can only be assigned one touch pass.")
			return
		}
		s.linkPass(tp, u, "")
		writeData(w, clone(*tp))
	})
}

func (s *Server) unassignUserTouchPass(w http.ResponseWriter, r *http.Request) {
	s.withUser(w, r, func(u *access.User) {
		s.mu.touch()
		tp := s.touchPass(r.PathValue("tp"))
		if tp == nil || tp.UserID != u.ID {
			touchPassNotFound(w)
			return
		}
		s.unlinkPass(tp)
		s.syncPass(tp, u.ID)
		writeData(w, clone(*tp))
	})
}

func (s *Server) batchAssignTouchPasses(w http.ResponseWriter, r *http.Request) {
	var req struct {
		IDs    []string          `json:"ids"`
		Emails map[string]string `json:"emails"`
	}
	if err := decodeBody(r, &req); err != nil || len(req.IDs) == 0 {
		badParams(w, "ids is required.")
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.mu.touch()
	// Check everything first: the batch is all or nothing.
	var users []*access.User
	for _, id := range req.IDs {
		u := s.user(id)
		if u == nil {
			userNotFound(w)
			return
		}
		if slices.Contains(users, u) || slices.ContainsFunc(s.creds.touchPasses.list, func(x *access.TouchPass) bool { return x.UserID == id }) {
			operationForbidden(w, "A user can only be assigned one touch pass.")
			return
		}
		users = append(users, u)
	}
	var free []*access.TouchPass
	for _, tp := range s.creds.touchPasses.list {
		if assignable(tp) {
			free = append(free, tp)
		}
	}
	if len(free) < len(users) {
		operationForbidden(w, fmt.Sprintf("Only %d assignable touch passes are left; purchase more.", len(free)))
		return
	}
	out := make([]access.TouchPass, len(users))
	for i, u := range users {
		s.linkPass(free[i], u, req.Emails[u.ID])
		out[i] = clone(*free[i])
	}
	writeData(w, out)
}

// pageBounds is the slice of a page of total records, without overflow
// for any positive page and size.
func pageBounds(page, size, total int) (start, end int) {
	start = total
	if page-1 <= total/size {
		start = min((page-1)*size, total)
	}
	end = total
	if size < total-start {
		end = start + size
	}
	return start, end
}

var touchPassStatuses = []access.TouchPassStatus{access.TouchPassActive, access.TouchPassPending, access.TouchPassSuspended, access.TouchPassInactive}

func (s *Server) listTouchPasses(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	page, ok1 := positiveParam(q, "page_num", 1)
	size, ok2 := positiveParam(q, "page_size", defaultPageSize)
	if !ok1 || !ok2 {
		badParams(w, "page_num and page_size must be positive integers.")
		return
	}
	status := access.TouchPassStatus(q.Get("status"))
	if status != "" && !slices.Contains(touchPassStatuses, status) {
		badParams(w, "status must be ACTIVE, PENDING, SUSPENDED or INACTIVE.")
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	var matched []access.TouchPass
	for _, tp := range s.creds.touchPasses.list {
		if status == "" || tp.Status == status {
			c := *tp // the list form has no activation objects
			c.ActivatedAt, c.ExpiredAt = nil, nil
			matched = append(matched, c)
		}
	}
	start, end := pageBounds(page, size, len(matched))
	total := len(matched)
	out := append([]access.TouchPass{}, matched[start:end]...)
	writeJSON(w, http.StatusOK, envelope{Code: access.CodeSuccess, Msg: "succ", Data: out,
		Pagination: &pagination{PageNum: page, PageSize: size, Total: total}})
}

func (s *Server) listAssignableTouchPasses(w http.ResponseWriter, _ *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := []access.TouchPass{}
	for _, tp := range s.creds.touchPasses.list {
		if assignable(tp) {
			out = append(out, clone(*tp))
		}
	}
	writeData(w, out)
}

// detailPass is a pass in its detail form: activated_at and expired_at
// are always objects.
func detailPass(tp *access.TouchPass) access.TouchPass {
	c := clone(*tp)
	if len(c.ActivatedAt) == 0 {
		c.ActivatedAt = json.RawMessage(`{}`)
	}
	if len(c.ExpiredAt) == 0 {
		c.ExpiredAt = json.RawMessage(`{}`)
	}
	return c
}

func (s *Server) getTouchPass(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	tp := s.touchPass(r.PathValue("id"))
	if tp == nil {
		touchPassNotFound(w)
		return
	}
	writeData(w, detailPass(tp))
}

func (s *Server) updateTouchPass(w http.ResponseWriter, r *http.Request) {
	var req struct {
		CardName *string                `json:"card_name"`
		Status   access.TouchPassStatus `json:"status"`
		Bundles  []access.BundleUpdate  `json:"bundles"`
	}
	if err := decodeBody(r, &req); err != nil {
		badParams(w, "Body is not a JSON touch-pass update.")
		return
	}
	if req.Status != "" && req.Status != access.TouchPassActive && req.Status != access.TouchPassSuspended {
		badParams(w, "status must be ACTIVE or SUSPENDED.")
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.mu.touch()
	tp := s.touchPass(r.PathValue("id"))
	if tp == nil {
		touchPassNotFound(w)
		return
	}
	switch {
	case req.Status == access.TouchPassActive && (tp.UserID == "" || len(tp.Bundles) == 0):
		operationForbidden(w, "Only a pass in a user's wallet can be active.")
		return
	case req.Status == access.TouchPassSuspended && tp.Status != access.TouchPassActive && tp.Status != access.TouchPassPending && tp.Status != access.TouchPassSuspended:
		operationForbidden(w, "Only an assigned pass can be suspended.")
		return
	}
	for _, b := range req.Bundles {
		if b.BundleStatus != access.BundleDisabled {
			badParams(w, "bundle_status must be DISABLED.")
			return
		}
		if !slices.ContainsFunc(tp.Bundles, func(x access.TouchPassBundle) bool { return x.BundleID == b.BundleID }) {
			badParams(w, "unknown bundle "+strconv.Quote(b.BundleID)+".")
			return
		}
	}
	if req.CardName != nil {
		tp.CardName = *req.CardName
	}
	if req.Status != "" {
		tp.Status = req.Status
	}
	for _, b := range req.Bundles {
		for i := range tp.Bundles {
			if tp.Bundles[i].BundleID == b.BundleID {
				tp.Bundles[i].BundleStatus = access.BundleDisabled
			}
		}
	}
	tp.LastActivity = access.DateTime(s.clockNow().Format(time.RFC3339))
	s.syncPass(tp, tp.UserID)
	writeData(w, detailPass(tp))
}

// AddToWallet acts out a user adding their PENDING (or re-adding a
// SUSPENDED) pass to a phone wallet: a bundle is added and the pass turns
// ACTIVE. Its activated_at stays the empty object every console sends
// (the vendor's samples show no member in it). It returns the pass, or
// false when the pass does not exist or has no user.
func (s *Server) AddToWallet(touchPassID string, source access.TouchPassSource, deviceName string) (access.TouchPass, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.mu.touch()
	tp := s.touchPass(touchPassID)
	if tp == nil || tp.UserID == "" {
		return access.TouchPass{}, false
	}
	typ := 20
	if source == access.SourceApple {
		typ = 10
	}
	now := s.clockNow()
	tp.Bundles = append(tp.Bundles, access.TouchPassBundle{BundleID: s.newID(), BundleStatus: access.BundleActive,
		DeviceID: "device-" + s.randomHex(4), DeviceName: deviceName, DeviceType: typ, Source: source})
	tp.Status = access.TouchPassActive
	tp.LastActivity = access.DateTime(now.Format(time.RFC3339))
	s.syncPass(tp, tp.UserID)
	return detailPass(tp), true
}
