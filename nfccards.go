package access

import (
	"context"
	"errors"
	"fmt"
	"io"
	"iter"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// NFCCardsService enrolls NFC cards at a reader, lists, renames, deletes
// and imports them. Assign a card to a user with
// [UsersService.AssignNFCCard] or to a visitor with
// [VisitorsService.AssignNFCCard]. Get it from [Client.NFCCards].
type NFCCardsService service

// NFCCardStatus is a card's status in the card list.
type NFCCardStatus string

// NFC card statuses documented by the vendor; others are kept as sent.
const (
	NFCCardAssigned NFCCardStatus = "assigned"
	NFCCardPending  NFCCardStatus = "pending"
	NFCCardDisabled NFCCardStatus = "disable"
	NFCCardDeleted  NFCCardStatus = "deleted"
	NFCCardLost     NFCCardStatus = "loss"
)

// NFCCard is an NFC credential. Users and visitors embed their cards with
// only ID, Token and Type set; the card list ([NFCCardsService.Get],
// [NFCCardsService.List]) fills the other fields and leaves ID and Type
// empty.
type NFCCard struct {
	// ID is the card number printed on the card (embedded form).
	ID string `json:"id,omitempty"`
	// Token identifies the card in every call.
	Token string `json:"token"`
	// Type is the card type in the embedded form, e.g. "ua_card".
	Type string `json:"type,omitempty"`
	// DisplayID is the card number in the card list.
	DisplayID string        `json:"display_id,omitempty"`
	Status    NFCCardStatus `json:"status,omitempty"`
	Alias     string        `json:"alias,omitempty"`
	// CardType is the card type in the card list, e.g. "ua_card".
	CardType string `json:"card_type,omitempty"`
	Note     string `json:"note,omitempty"`
	// UserID and UserType ("USER" or "VISITOR") name the holder, if any.
	UserID   string        `json:"user_id,omitempty"`
	UserType string        `json:"user_type,omitempty"`
	User     *NFCCardOwner `json:"user,omitempty"`
}

// NFCCardOwner is the holder of a card, as the card list shows it.
type NFCCardOwner struct {
	ID        string `json:"id"`
	FirstName string `json:"first_name,omitempty"`
	LastName  string `json:"last_name,omitempty"`
	Name      string `json:"name,omitempty"`
	Avatar    string `json:"avatar,omitempty"`
}

// NFCCardAssignment is the body of [UsersService.AssignNFCCard] and
// [VisitorsService.AssignNFCCard].
type NFCCardAssignment struct {
	// Token is the card's token, from an enrollment or the card list.
	Token string `json:"token"`
	// ForceAdd moves a card that another user or visitor holds; without
	// it that answers CODE_CREDS_NFC_HAS_BIND_USER ([ErrConflict]).
	ForceAdd bool `json:"force_add,omitempty"`
}

func (a *NFCCardAssignment) validate(op string) error {
	if a == nil {
		return invalidArg(op, "req", "must not be nil")
	}
	if strings.TrimSpace(a.Token) == "" {
		return invalidArg(op, "Token", "must not be empty")
	}
	return nil
}

// EnrollmentRequest is the body of [NFCCardsService.StartEnrollment].
type EnrollmentRequest struct {
	// DeviceID is the reader to wake, from [DevicesService.List].
	DeviceID string `json:"device_id"`
	// ResetUACard resets a UA card that is enrolled at another site.
	ResetUACard bool `json:"reset_ua_card,omitempty"`
}

// EnrollmentSession is an open enrollment session on a reader.
type EnrollmentSession struct {
	SessionID string `json:"session_id"`
}

// EnrolledCard is the card read during an enrollment session.
type EnrolledCard struct {
	// Token is what the assign calls take.
	Token string `json:"token"`
	// CardID is the number printed on the card.
	CardID string `json:"card_id"`
}

// StartEnrollment wakes a reader and opens an enrollment session on it.
// Poll it with [NFCCardsService.EnrollmentStatus] and close it with
// [NFCCardsService.EndEnrollment]; [NFCCardsService.Enroll] does all three.
// Waking the reader acts on a physical device, and a session opened twice
// leaves one whose id is lost: like [DoorsService.Unlock], the request is
// retried only after a failure that proves the console did not act,
// whatever RetryPolicy.RetryWrites says.
//
// API: POST /api/v1/developer/credentials/nfc_cards/sessions (permission edit:credential)
func (s *NFCCardsService) StartEnrollment(ctx context.Context, req *EnrollmentRequest) (*EnrollmentSession, *Response, error) {
	const op = "NFCCards.StartEnrollment"
	if req == nil {
		return nil, nil, invalidArg(op, "req", "must not be nil")
	}
	if err := checkID(op, "DeviceID", req.DeviceID); err != nil {
		return nil, nil, err
	}
	v, resp, err := call[EnrollmentSession](physicalAct(ctx), s.client, "POST", "/credentials/nfc_cards/sessions", nil, req, true)
	if err == nil && v.SessionID == "" {
		return nil, resp, invalidData(resp, "no session_id in the answer")
	}
	return v, resp, err
}

// EnrollmentStatus polls an enrollment session. Until a card is read the
// controller answers CODE_CREDS_NFC_READ_POLL_TOKEN_EMPTY, which matches
// [ErrCardNotRead]; a card that cannot be enrolled answers one of the
// codes matching [ErrCardProvisioned], [ErrCardProvisionFailed] or
// [ErrCardInvalid]; an unknown or expired session matches [ErrNotFound].
//
// API: GET /api/v1/developer/credentials/nfc_cards/sessions/:id (permission edit:credential)
func (s *NFCCardsService) EnrollmentStatus(ctx context.Context, sessionID string) (*EnrolledCard, *Response, error) {
	if err := checkID("NFCCards.EnrollmentStatus", "sessionID", sessionID); err != nil {
		return nil, nil, err
	}
	v, resp, err := call[EnrolledCard](ctx, s.client, "GET", "/credentials/nfc_cards/sessions/"+pathSeg(sessionID), nil, nil, true)
	if err == nil && v.Token == "" {
		// Some consoles answer SUCCESS with an empty token while waiting.
		e := &APIError{StatusCode: resp.StatusCode, Code: CodeCredsNFCReadPollTokenEmpty, Message: "no card read yet", Method: "GET"}
		if resp.Request != nil {
			e.URL = resp.Request.URL.String()
		}
		return nil, resp, e
	}
	return v, resp, err
}

// EndEnrollment closes an enrollment session; the reader goes back to
// normal. Closing a session that is already gone succeeds when an earlier
// attempt of the same call closed it.
//
// API: DELETE /api/v1/developer/credentials/nfc_cards/sessions/:id (permission edit:credential)
func (s *NFCCardsService) EndEnrollment(ctx context.Context, sessionID string) (*Response, error) {
	if err := checkID("NFCCards.EndEnrollment", "sessionID", sessionID); err != nil {
		return nil, err
	}
	return del(ctx, s.client, "/credentials/nfc_cards/sessions/"+pathSeg(sessionID), nil)
}

// invalidData is the error for a success answer whose data is unusable
// (an empty session id or PIN): an invalid response.
func invalidData(resp *Response, what string) error {
	e := &APIError{StatusCode: resp.StatusCode, Code: resp.Code, Message: what,
		Err: fmt.Errorf("%w: %s", ErrInvalidResponse, what)}
	if resp.Request != nil {
		e.Method, e.URL = resp.Request.Method, resp.Request.URL.String()
	}
	return e
}

// DefaultEnrollPollInterval is how often [NFCCardsService.Enroll] polls,
// as the vendor's flowchart says.
const DefaultEnrollPollInterval = time.Second

// endEnrollmentTimeout bounds the cleanup call of Enroll, which runs on a
// fresh context so that a cancelled caller still closes the session.
const endEnrollmentTimeout = 10 * time.Second

// EnrollOptions tunes [NFCCardsService.Enroll]. The zero value polls every
// second without resetting cards.
type EnrollOptions struct {
	// ResetUACard resets a UA card enrolled at another site instead of
	// failing with [ErrCardProvisioned].
	ResetUACard bool
	// PollInterval is the wait between two polls; zero means
	// [DefaultEnrollPollInterval].
	PollInterval time.Duration
	// Started, when set, is called once the reader is awake, with the
	// session id: the moment to ask the holder to tap the card.
	Started func(sessionID string)
}

// Enroll enrolls one card at a reader: it wakes the reader
// (StartEnrollment), polls the session every PollInterval (one second by
// default) while no card has been read, and returns the card's token and
// number. ctx bounds the whole wait; give it a deadline.
//
// The session is closed (EndEnrollment) on every path: success, error,
// cancelled context and panic. The close runs on a fresh context of its
// own (at most ten seconds), so a cancelled ctx still frees the reader;
// its own failure is not reported, the controller expires sessions.
//
// Errors: a card enrolled at another site matches [ErrCardProvisioned]
// (retry with ResetUACard), a card removed too early
// [ErrCardProvisionFailed] (hold it longer), a card that is not a UA card
// [ErrCardInvalid]; an expired session [ErrNotFound]. They are
// *[APIError] values carrying the vendor's code. A cancelled or expired
// ctx returns its error (errors.Is(err, context.DeadlineExceeded)).
//
// API: POST, GET and DELETE /api/v1/developer/credentials/nfc_cards/sessions (permission edit:credential)
func (s *NFCCardsService) Enroll(ctx context.Context, deviceID string, opts *EnrollOptions) (*EnrolledCard, *Response, error) {
	const op = "NFCCards.Enroll"
	if ctx == nil {
		return nil, nil, invalidArg(op, "ctx", "must not be nil")
	}
	var o EnrollOptions
	if opts != nil {
		o = *opts
	}
	if o.PollInterval < 0 {
		return nil, nil, invalidArg(op, "PollInterval", "must not be negative")
	}
	if o.PollInterval == 0 {
		o.PollInterval = DefaultEnrollPollInterval
	}
	if err := checkID(op, "deviceID", deviceID); err != nil {
		return nil, nil, err
	}
	sess, resp, err := s.StartEnrollment(ctx, &EnrollmentRequest{DeviceID: deviceID, ResetUACard: o.ResetUACard})
	if err != nil {
		return nil, resp, err
	}
	defer func() {
		cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), endEnrollmentTimeout)
		defer cancel()
		_, _ = s.EndEnrollment(cctx, sess.SessionID)
	}()
	if o.Started != nil {
		o.Started(sess.SessionID)
	}
	t := time.NewTimer(0)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil, resp, ctx.Err()
		case <-t.C:
		}
		card, r, err := s.EnrollmentStatus(ctx, sess.SessionID)
		if r != nil {
			resp = r
		}
		switch {
		case err == nil:
			return card, resp, nil
		case errors.Is(err, ErrCardNotRead):
			t.Reset(o.PollInterval)
		case ctx.Err() != nil:
			return nil, resp, ctx.Err()
		default:
			return nil, resp, err
		}
	}
}

// Get fetches a card by its token (controller 1.22.16 or later).
//
// API: GET /api/v1/developer/credentials/nfc_cards/tokens/:token (permission view:credential)
func (s *NFCCardsService) Get(ctx context.Context, token string) (*NFCCard, *Response, error) {
	if err := checkID("NFCCards.Get", "token", token); err != nil {
		return nil, nil, err
	}
	return call[NFCCard](ctx, s.client, "GET", "/credentials/nfc_cards/tokens/"+pathSeg(token), nil, nil, true)
}

// NFCCardListOptions pages the card list. The zero value uses the
// controller's default paging.
type NFCCardListOptions struct {
	// PageNum is the 1-based page number (query "page_num").
	PageNum int `url:"page_num,omitempty"`
	// PageSize is the number of cards per page (query "page_size").
	PageSize int `url:"page_size,omitempty"`
}

// pagingQuery is page_num and page_size, each when positive.
func pagingQuery(num, size int) url.Values {
	q := make(url.Values, 3)
	if num > 0 {
		q.Set("page_num", strconv.Itoa(num))
	}
	if size > 0 {
		q.Set("page_size", strconv.Itoa(size))
	}
	return q
}

// List fetches one page of cards (controller 1.22.16 or later);
// resp.Pagination holds the paging information.
//
// API: GET /api/v1/developer/credentials/nfc_cards/tokens (permission view:credential)
func (s *NFCCardsService) List(ctx context.Context, opts *NFCCardListOptions) ([]NFCCard, *Response, error) {
	if opts != nil {
		if err := checkPaging("NFCCards.List", opts.PageNum, opts.PageSize); err != nil {
			return nil, nil, err
		}
	}
	var q url.Values
	if opts != nil {
		q = pagingQuery(opts.PageNum, opts.PageSize)
	}
	return list[NFCCard](ctx, s.client, "/credentials/nfc_cards/tokens", q)
}

// All iterates over every card, fetching pages lazily as the loop
// advances; it pages like [VisitorsService.All]. opts is copied, never
// modified. Permission view:credential; controller 1.22.16 or later.
func (s *NFCCardsService) All(ctx context.Context, opts *NFCCardListOptions) iter.Seq2[NFCCard, error] {
	var o NFCCardListOptions
	if opts != nil {
		o = *opts
	}
	if err := checkPaging("NFCCards.All", o.PageNum, o.PageSize); err != nil {
		return func(yield func(NFCCard, error) bool) { yield(NFCCard{}, err) }
	}
	return paginate(ctx, o.PageNum, o.PageSize, func(c *NFCCard) string { return c.Token },
		func(ctx context.Context, num, size int) (page[NFCCard], error) {
			o.PageNum, o.PageSize = num, size
			items, resp, err := s.List(ctx, &o)
			return page[NFCCard]{items: items, total: resp.total()}, err
		})
}

// Delete deletes a card (controller 1.22.16 or later). A card that cannot
// be deleted answers CODE_CREDS_NFC_CARD_CANNOT_BE_DELETE.
//
// API: DELETE /api/v1/developer/credentials/nfc_cards/tokens/:token (permission edit:credential)
func (s *NFCCardsService) Delete(ctx context.Context, token string) (*Response, error) {
	if err := checkID("NFCCards.Delete", "token", token); err != nil {
		return nil, err
	}
	return del(ctx, s.client, "/credentials/nfc_cards/tokens/"+pathSeg(token), nil)
}

// NFCCardUpdate is the body of [NFCCardsService.Update]. A nil member
// keeps the card's value; a non-nil one sets it (see [Ptr]).
type NFCCardUpdate struct {
	// Alias is the card's display name; Ptr("") clears it.
	Alias *string `json:"alias,omitempty"`
}

// Update renames a card (controller 3.1.30 or later).
//
// API: PUT /api/v1/developer/credentials/nfc_cards/tokens/:token (permission edit:credential)
func (s *NFCCardsService) Update(ctx context.Context, token string, req *NFCCardUpdate) (*Response, error) {
	const op = "NFCCards.Update"
	if err := checkID(op, "token", token); err != nil {
		return nil, err
	}
	switch {
	case req == nil:
		return nil, invalidArg(op, "req", "must not be nil")
	case req.Alias == nil:
		return nil, invalidArg(op, "req", "changes nothing: set Alias")
	}
	_, resp, err := call[ignored](ctx, s.client, "PUT", "/credentials/nfc_cards/tokens/"+pathSeg(token), nil, req, false)
	return resp, err
}

// NFCImportRow is one third-party card to import.
type NFCImportRow struct {
	// NFCID is the card's id in hexadecimal; it is sent upper-case.
	NFCID string
	// Alias names the card; aliases must be unique within an import.
	Alias string
}

// NFCImportResult is the outcome of one imported row.
type NFCImportResult struct {
	NFCID string `json:"nfc_id"`
	Alias string `json:"alias"`
	// Token is the imported card's token; empty when the row failed.
	Token string `json:"token"`
}

// Failed reports whether the controller did not import the row.
func (r NFCImportResult) Failed() bool { return r.Token == "" }

// NFCImportError is returned by [NFCCardsService.Import], next to the
// results, when the controller rejected some rows.
type NFCImportError struct {
	// Failed are the rows that came back without a token.
	Failed []NFCImportResult
}

// Error implements error.
func (e *NFCImportError) Error() string {
	ids := make([]string, len(e.Failed))
	for i, r := range e.Failed {
		ids[i] = r.NFCID
	}
	return fmt.Sprintf("access: NFCCards.Import: %d row(s) not imported: %s", len(e.Failed), strings.Join(ids, ", "))
}

func validateImport(rows []NFCImportRow) error {
	const op = "NFCCards.Import"
	if len(rows) == 0 {
		return invalidArg(op, "rows", "must not be empty")
	}
	aliases := make(map[string]int, len(rows))
	for i, r := range rows {
		id := strings.TrimSpace(r.NFCID)
		field := fmt.Sprintf("rows[%d]", i)
		if id == "" || len(id)%2 != 0 {
			return invalidArg(op, field+".NFCID", "must be an even number of hexadecimal digits")
		}
		for _, c := range id {
			if !strings.ContainsRune("0123456789abcdefABCDEF", c) {
				return invalidArg(op, field+".NFCID", "must be hexadecimal")
			}
		}
		alias := strings.TrimSpace(r.Alias)
		if strings.ContainsAny(alias, ",\"\r\n") {
			return invalidArg(op, field+".Alias", "must not contain a comma, quote or line break")
		}
		if alias == "" {
			continue
		}
		if j, dup := aliases[alias]; dup {
			return invalidArg(op, field+".Alias", fmt.Sprintf("duplicates rows[%d]: aliases must be unique", j))
		}
		aliases[alias] = i
	}
	return nil
}

// csvReader produces the import CSV ("NFC_ID, alias" lines) row by row
// as the upload reads it: the file is never built whole in memory.
type csvReader struct {
	rows []NFCImportRow
	buf  []byte
}

// Read implements io.Reader.
func (c *csvReader) Read(p []byte) (int, error) {
	for len(c.buf) == 0 {
		if len(c.rows) == 0 {
			return 0, io.EOF
		}
		r := c.rows[0]
		c.rows = c.rows[1:]
		c.buf = append(c.buf[:0], strings.ToUpper(strings.TrimSpace(r.NFCID))...)
		c.buf = append(c.buf, ", "...)
		c.buf = append(c.buf, strings.TrimSpace(r.Alias)...)
		c.buf = append(c.buf, '\n')
	}
	n := copy(p, c.buf)
	c.buf = c.buf[n:]
	return n, nil
}

// Len is the number of bytes left to read. The rows are in memory, so a
// small import is encoded at once and sent with a Content-Length, like a
// JSON body, instead of through a pipe and a goroutine (multipartBody).
func (c *csvReader) Len() int {
	n := len(c.buf)
	for _, r := range c.rows {
		// validateImport accepted only hexadecimal ids: upper-casing
		// keeps their length.
		n += len(strings.TrimSpace(r.NFCID)) + len(", ") + len(strings.TrimSpace(r.Alias)) + len("\n")
	}
	return n
}

// Import imports third-party NFC cards (controller 3.3.10 or later). The
// rows are written as the CSV the vendor describes (lines of
// "NFC_ID, alias", ids in upper-case hexadecimal) and streamed as a
// multipart upload; the upload is sent once, never retried. Rows are
// checked first: hexadecimal ids, unique aliases.
//
// The results list every row the controller answered for. When some came
// back without a token the error is an *[NFCImportError] listing them,
// returned together with all the results.
//
// The per-attempt timeout ([WithTimeout]) bounds the wait between two
// chunks sent and the wait for the answer, never the whole upload.
//
// API: POST /api/v1/developer/credentials/nfc_cards/import (permission edit:credential)
func (s *NFCCardsService) Import(ctx context.Context, rows []NFCImportRow) ([]NFCImportResult, *Response, error) {
	if err := validateImport(rows); err != nil {
		return nil, nil, err
	}
	if ctx == nil {
		return nil, nil, invalidArg("NFCCards.Import", "ctx", "must not be nil")
	}
	body := multipartBody(formFile{field: "file", filename: "nfc_cards.csv", contentType: "text/csv", r: &csvReader{rows: rows}})
	v, resp, err := call[[]NFCImportResult](ctx, s.client, "POST", "/credentials/nfc_cards/import", nil, body, false)
	if err != nil {
		return nil, resp, err
	}
	var results []NFCImportResult
	if v != nil {
		results = *v
	}
	var failed []NFCImportResult
	for _, r := range results {
		if r.Failed() {
			failed = append(failed, r)
		}
	}
	if failed != nil {
		return results, resp, &NFCImportError{Failed: failed}
	}
	return results, resp, nil
}
