package accesstest

import (
	"crypto/sha256"
	"encoding/csv"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/access-dev/access"
)

// NFC cards: the card list, enrollment sessions at a reader, and the
// third-party import.
//
// A card is known to the server once it was enrolled (a test's
// [Server.TapCard]), imported, or seeded on a user or visitor. Who holds
// it is read from the holders' records (see credentials.go).

// The NFC card operations.
const (
	OpNFCCardsStartEnrollment  Op = "NFCCards.StartEnrollment"
	OpNFCCardsEnrollmentStatus Op = "NFCCards.EnrollmentStatus"
	OpNFCCardsEndEnrollment    Op = "NFCCards.EndEnrollment"
	OpNFCCardsGet              Op = "NFCCards.Get"
	OpNFCCardsList             Op = "NFCCards.List"
	OpNFCCardsDelete           Op = "NFCCards.Delete"
	OpNFCCardsUpdate           Op = "NFCCards.Update"
	OpNFCCardsImport           Op = "NFCCards.Import"
)

// EnrollmentSessionTimeout is how long an enrollment session lives on the
// fake's time (see [Server.Advance]) before it is removed; polling it
// then answers CODE_CREDS_NFC_READ_SESSION_NOT_FOUND.
const EnrollmentSessionTimeout = 2 * time.Minute

// cardRec is a card of the card list, in its list form; status and holder
// are filled when it is read.
type cardRec = access.NFCCard

// sessionRec is an enrollment session on a reader.
type sessionRec struct {
	id, deviceID string
	reset        bool
	token        string           // set by a tap
	cardID       string           // the tapped card's number, kept if the card is deleted
	code         access.ErrorCode // set by a failed tap, answered once
	expiry       *timer
}

// cardHolder is who holds a card: a user or a visitor.
type cardHolder struct {
	id      string
	visitor bool
}

// nfcHolder returns the id and kind (USER or VISITOR) of the holder of a
// card, or "", from the index of holders (credState.holders), in O(1).
// Every card given to someone is indexed (holdCards); an entry whose
// holder no longer has the card (unassigned, deleted with its holder) is
// dropped when met. The caller holds s.mu.
func (s *Server) nfcHolder(token string) (id, kind string) {
	c := s.cr()
	h, ok := c.holders[token]
	if !ok {
		return "", ""
	}
	var cards []access.NFCCard
	kind = "USER"
	if h.visitor {
		kind = "VISITOR"
		if v := s.visitor(h.id); v != nil {
			cards = v.NFCCards
		}
	} else if u := s.user(h.id); u != nil {
		cards = u.NFCCards
	}
	if !slices.ContainsFunc(cards, func(c access.NFCCard) bool { return c.Token == token }) {
		delete(c.holders, token)
		return "", ""
	}
	return h.id, kind
}

// holdCards indexes the cards a user or visitor was given (a card held
// already stays with its first holder, as the scan of users, then
// visitors, found it before) and adds those not in the card list to it.
// The caller holds s.mu.
func (s *Server) holdCards(id string, visitor bool, cards []access.NFCCard) {
	c := s.cr()
	for _, card := range cards {
		if h, _ := s.nfcHolder(card.Token); h == "" {
			c.holders[card.Token] = cardHolder{id: id, visitor: visitor}
		}
		if !c.cards.has(card.Token) {
			typ := card.Type
			if typ == "" {
				typ = "ua_card"
			}
			c.cards.add(&cardRec{Token: card.Token, DisplayID: card.ID, CardType: typ})
		}
	}
}

// indexCards indexes every held card from scratch (a state read from a
// file). The caller holds s.mu.
func (s *Server) indexCards() {
	s.cr().holders = map[string]cardHolder{}
	for _, u := range s.people.users.list {
		s.holdCards(u.ID, false, u.NFCCards)
	}
	for _, v := range s.people.visitors.list {
		s.holdCards(v.ID, true, v.NFCCards)
	}
}

// releaseNFC takes a card from whoever holds it. The caller holds s.mu.
func (s *Server) releaseNFC(token string) {
	drop := func(cards *[]access.NFCCard) bool {
		n := len(*cards)
		*cards = slices.DeleteFunc(*cards, func(c access.NFCCard) bool { return c.Token == token })
		return len(*cards) != n
	}
	for _, u := range s.people.users.list {
		if drop(&u.NFCCards) {
			s.people.users.mark(u)
		}
	}
	for _, v := range s.people.visitors.list {
		if drop(&v.NFCCards) {
			s.people.visitors.mark(v)
		}
	}
}

// NFCHolder returns the id of the user or visitor holding the card with
// the given token, or "".
func (s *Server) NFCHolder(token string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	id, _ := s.nfcHolder(token)
	return id
}

// card returns the card with the token, or nil. The caller holds s.mu.
func (s *Server) card(token string) *cardRec {
	return s.cr().cards.get(token)
}

// wireCard is a card as the card list shows it. The caller holds s.mu.
func (s *Server) wireCard(rec *cardRec) access.NFCCard {
	out := *rec
	out.Status, out.UserID, out.UserType, out.User = access.NFCCardPending, "", "", nil
	id, kind := s.nfcHolder(rec.Token)
	switch kind {
	case "USER":
		u := s.user(id)
		out.Status, out.UserID, out.UserType = access.NFCCardAssigned, id, kind
		out.User = &access.NFCCardOwner{ID: id, FirstName: u.FirstName, LastName: u.LastName, Name: strings.TrimSpace(u.FirstName + " " + u.LastName)}
	case "VISITOR":
		v := s.visitor(id)
		out.Status, out.UserID, out.UserType = access.NFCCardAssigned, id, kind
		out.User = &access.NFCCardOwner{ID: id, FirstName: v.FirstName, LastName: v.LastName, Name: strings.TrimSpace(v.FirstName + " " + v.LastName)}
	}
	return out
}

// NFCCards returns the card list as the server would send it.
func (s *Server) NFCCards() []access.NFCCard {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]access.NFCCard, s.cr().cards.len())
	for i, rec := range s.cr().cards.list {
		out[i] = s.wireCard(rec)
	}
	return out
}

// cardToken is the token the fake gives a card: a hash of its number, so
// the same card always gets the same token.
func cardToken(nfcID string) string {
	sum := sha256.Sum256([]byte("accesstest-nfc:" + strings.ToUpper(nfcID)))
	return hex.EncodeToString(sum[:])
}

// ---- enrollment ----

// errNoSession is returned by TapCard and FailTap without a session.
var errNoSession = errors.New("accesstest: no enrollment session on the device")

// session returns the open session of a device. The caller holds s.mu.
func (s *Server) deviceSession(deviceID string) *sessionRec {
	for _, ss := range s.cr().sessions {
		if ss.deviceID == deviceID {
			return ss
		}
	}
	return nil
}

// TapCard acts out a card held on a reader that has an enrollment session
// open: the session's next poll answers the card's token and number.
// cardNumber is the number printed on the card (any string; its token is
// derived from it, so the same number always gives the same token). It
// returns the token, or an error when the device has no session.
func (s *Server) TapCard(deviceID, cardNumber string) (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.mu.touch()
	s.runDue()
	ss := s.deviceSession(deviceID)
	if ss == nil {
		return "", fmt.Errorf("%w %q", errNoSession, deviceID)
	}
	token := cardToken(cardNumber)
	ss.token, ss.cardID, ss.code = token, cardNumber, ""
	if s.card(token) == nil {
		s.cr().cards.add(&cardRec{Token: token, DisplayID: cardNumber, CardType: "ua_card"})
	}
	return token, nil
}

// FailTap acts out a tap that fails with one of the enrollment codes:
// [access.CodeCredsNFCCardIsProvision] (the card belongs to another site),
// [access.CodeCredsNFCCardProvisionFailed] (removed too early) or
// [access.CodeCredsNFCCardInvalid] (not a UA card). The session's next
// poll answers it; the session stays open for another tap. A card of
// another site on a session started with reset_ua_card is reset instead:
// FailTap then returns nil and the poll keeps waiting.
func (s *Server) FailTap(deviceID string, code access.ErrorCode) error {
	switch code {
	case access.CodeCredsNFCCardIsProvision, access.CodeCredsNFCCardProvisionFailed, access.CodeCredsNFCCardInvalid:
	default:
		return fmt.Errorf("accesstest: FailTap: %s is not an enrollment code", code)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.mu.touch()
	s.runDue()
	ss := s.deviceSession(deviceID)
	if ss == nil {
		return fmt.Errorf("%w %q", errNoSession, deviceID)
	}
	if code == access.CodeCredsNFCCardIsProvision && ss.reset {
		return nil
	}
	ss.code = code
	return nil
}

// EnrollmentSessions returns the ids of the open enrollment sessions.
func (s *Server) EnrollmentSessions() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.runDue()
	var out []string
	for id := range s.cr().sessions {
		out = append(out, id)
	}
	slices.Sort(out)
	return out
}

func (s *Server) startEnrollment(w http.ResponseWriter, r *http.Request) {
	var req struct {
		DeviceID    string `json:"device_id"`
		ResetUACard bool   `json:"reset_ua_card"`
	}
	if err := decodeBody(r, &req); err != nil || req.DeviceID == "" {
		badParams(w, "device_id is required.")
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.mu.touch()
	s.runDue()
	h := s.sp().device(req.DeviceID)
	switch {
	case h == nil:
		writeError(w, http.StatusBadRequest, access.CodeDeviceDeviceNotFound, "The device was not found.")
		return
	case !slices.Contains(h.dev.Capabilities, "nfc"):
		writeError(w, http.StatusBadRequest, access.CodeDeviceAPINotSupported, "The device cannot read NFC cards.")
		return
	case !h.dev.IsOnline:
		writeError(w, http.StatusOK, access.CodeDeviceDeviceOffline, "The device is currently offline.")
		return
	}
	c := s.cr()
	if old := s.deviceSession(req.DeviceID); old != nil { // a reader runs one session
		old.expiry.stop()
		delete(c.sessions, old.id)
	}
	ss := &sessionRec{id: s.newID(), deviceID: req.DeviceID, reset: req.ResetUACard}
	id := ss.id
	ss.expiry = s.after(EnrollmentSessionTimeout, timerKey{Kind: timerSessionExpiry, ID: id})
	c.sessions[id] = ss
	writeData(w, map[string]string{"session_id": id})
}

func sessionNotFound(w http.ResponseWriter) {
	writeError(w, http.StatusBadRequest, access.CodeCredsNFCReadSessionNotFound, "Failed to obtain the NFC read session.")
}

func (s *Server) enrollmentStatus(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.mu.touch()
	s.runDue()
	ss := s.cr().sessions[r.PathValue("id")]
	switch {
	case ss == nil:
		sessionNotFound(w)
	case ss.code != "":
		code := ss.code
		ss.code = ""
		msgs := map[access.ErrorCode]string{
			access.CodeCredsNFCCardIsProvision:     "The NFC card is already registered at another site.",
			access.CodeCredsNFCCardProvisionFailed: "Please hold the NFC card against the reader for more than 5 seconds.",
			access.CodeCredsNFCCardInvalid:         "The card type is not supported. Please use a UA Card.",
		}
		writeError(w, http.StatusOK, code, msgs[code])
	case ss.token == "":
		writeError(w, http.StatusOK, access.CodeCredsNFCReadPollTokenEmpty, "The NFC token is empty.")
	default:
		writeData(w, access.EnrolledCard{Token: ss.token, CardID: ss.cardID})
	}
}

func (s *Server) endEnrollment(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.mu.touch()
	s.runDue()
	c := s.cr()
	ss := c.sessions[r.PathValue("id")]
	if ss == nil {
		sessionNotFound(w)
		return
	}
	ss.expiry.stop()
	delete(c.sessions, ss.id)
	writeSuccess(w)
}

// ---- the card list ----

func cardNotFound(w http.ResponseWriter) {
	writeError(w, http.StatusBadRequest, access.CodeResourceNotFound, "The NFC card does not exist.")
}

func (s *Server) getNFCCard(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	rec := s.card(r.PathValue("token"))
	if rec == nil {
		cardNotFound(w)
		return
	}
	writeData(w, cardView(s.wireCard(rec)))
}

func (s *Server) listNFCCards(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	page, ok1 := positiveParam(q, "page_num", 1)
	size, ok2 := positiveParam(q, "page_size", defaultPageSize)
	if !ok1 || !ok2 {
		badParams(w, "page_num and page_size must be positive integers.")
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	cards := s.cr().cards.list
	total := len(cards)
	start, end := pageBounds(page, size, total)
	out := make([]cardWire, 0, end-start)
	for _, rec := range cards[start:end] {
		out = append(out, cardView(s.wireCard(rec)))
	}
	writeJSON(w, http.StatusOK, envelope{Code: access.CodeSuccess, Msg: "success", Data: out,
		Pagination: &pagination{PageNum: page, PageSize: size, Total: total}})
}

// deleteNFCCard deletes a card that no one holds; a held card answers
// CODE_CREDS_NFC_CARD_CANNOT_BE_DELETE (unassign it first).
func (s *Server) deleteNFCCard(w http.ResponseWriter, r *http.Request) {
	token := r.PathValue("token")
	s.mu.Lock()
	defer s.mu.Unlock()
	s.mu.touch()
	if s.card(token) == nil {
		cardNotFound(w)
		return
	}
	if h, _ := s.nfcHolder(token); h != "" {
		writeError(w, http.StatusBadRequest, access.CodeCredsNFCCardCannotBeDelete, "The NFC card could not be deleted: it is assigned.")
		return
	}
	c := s.cr()
	c.cards.remove(token)
	writeSuccess(w)
}

func (s *Server) updateNFCCard(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Alias *string `json:"alias"`
	}
	if err := decodeBody(r, &req); err != nil || req.Alias == nil {
		badParams(w, "alias is required.")
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.mu.touch()
	rec := s.card(r.PathValue("token"))
	if rec == nil {
		cardNotFound(w)
		return
	}
	rec.Alias = *req.Alias
	writeSuccess(w)
}

// importNFCCards reads the CSV of a multipart upload: lines of
// "NFC_ID, alias". Duplicate aliases within the file fail the import; a
// row whose id is not upper-case hexadecimal, whose card is already known
// or whose alias another card has comes back with an empty token.
func (s *Server) importNFCCards(w http.ResponseWriter, r *http.Request) {
	f, _, err := r.FormFile("file")
	if err != nil {
		badParams(w, "A multipart file part named file is required.")
		return
	}
	defer f.Close()
	cr := csv.NewReader(f)
	cr.FieldsPerRecord = -1
	cr.TrimLeadingSpace = true
	type row struct{ id, alias string }
	var rows []row
	aliases := map[string]bool{}
	for {
		rec, err := cr.Read()
		if err == io.EOF {
			break
		}
		if err != nil || len(rec) < 1 || len(rec) > 2 {
			badParams(w, "The file must be CSV lines of NFC_ID, alias.")
			return
		}
		rw := row{id: strings.TrimSpace(rec[0])}
		if len(rec) == 2 {
			rw.alias = strings.TrimSpace(rec[1])
		}
		if rw.alias != "" && aliases[rw.alias] {
			badParams(w, "Duplicate alias "+strconv.Quote(rw.alias)+".")
			return
		}
		aliases[rw.alias] = rw.alias != ""
		rows = append(rows, rw)
	}
	if len(rows) == 0 {
		badParams(w, "The file has no rows.")
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.mu.touch()
	c := s.cr()
	type result struct {
		NFCID string `json:"nfc_id"`
		Alias string `json:"alias"`
		Token string `json:"token"`
	}
	out := make([]result, len(rows))
	for i, rw := range rows {
		out[i] = result{NFCID: rw.id, Alias: rw.alias}
		if !upperHex(rw.id) {
			continue
		}
		token := cardToken(rw.id)
		if s.card(token) != nil || rw.alias != "" && slices.ContainsFunc(c.cards.list, func(rec *cardRec) bool { return rec.Alias == rw.alias }) {
			continue
		}
		c.cards.add(&cardRec{Token: token, DisplayID: rw.id, Alias: rw.alias, CardType: "third_party"})
		out[i].Token = token
	}
	writeData(w, out)
}

func upperHex(s string) bool {
	if s == "" || len(s)%2 != 0 {
		return false
	}
	return strings.Trim(s, "0123456789ABCDEF") == ""
}
