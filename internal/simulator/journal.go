package simulator

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"io/fs"
	"os"
	"strconv"

	"github.com/access-dev/access/accesstest"
	"github.com/access-dev/access/internal/atomicfile"
)

// The state journal
//
// With durable saves, the state file is a snapshot and FILE.journal an
// append-only journal of the changes made since: each group commit
// appends one line holding the members of the state that changed (a
// list's elements by position, after dropping those that left its
// front, as a bounded log does), and fsyncs it. Now and then (when the
// journal outgrows the snapshot) the state is compacted: a new snapshot
// is written atomically, then a new journal whose first line is the
// snapshot's SHA-256. A journal whose first line names another snapshot
// is stale (a crash came between the two renames) and ignored: the
// snapshot holds it all. A line is "CRC32 JSON\n"; loading stops at the
// first line that is torn or does not check (a write never
// acknowledged).

// partsStore is a state store that can give its state member by member
// (accesstest.Server): the journal needs it.
type partsStore interface {
	StateParts() ([]accesstest.StatePart, error)
}

// journalPath is the journal of the state file at path.
func journalPath(path string) string { return path + ".journal" }

// journalOp is one member's change in a journal line.
type journalOp struct {
	Key   string                     `json:"k"`
	Value json.RawMessage            `json:"v,omitempty"` // the whole member
	Drop  int                        `json:"drop,omitempty"`
	Len   *int                       `json:"len,omitempty"` // a list's length after the change
	Set   map[string]json.RawMessage `json:"set,omitempty"` // a list's elements by position
}

// snapshotOf is the document of parts: an object of the members, a list
// as the array of its elements.
func snapshotOf(parts []accesstest.StatePart) []byte {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, p := range parts {
		if i > 0 {
			b.WriteByte(',')
		}
		k, _ := json.Marshal(p.Key)
		b.Write(k)
		b.WriteByte(':')
		if !p.List {
			b.Write(p.Value)
			continue
		}
		b.WriteByte('[')
		for j, e := range p.Elems {
			if j > 0 {
				b.WriteByte(',')
			}
			b.Write(e)
		}
		b.WriteByte(']')
	}
	b.WriteString("}\n")
	return b.Bytes()
}

// diffParts is the journal line's operations that turn prev into cur
// (the same members in the same order), or none when nothing changed.
func diffParts(prev, cur []accesstest.StatePart) []journalOp {
	var ops []journalOp
	for i, c := range cur {
		var p accesstest.StatePart
		if i < len(prev) && prev[i].Key == c.Key {
			p = prev[i]
		}
		if !c.List || !p.List {
			if c.List || p.List || !bytes.Equal(c.Value, p.Value) || p.Key == "" {
				ops = append(ops, wholeOp(c))
			}
			continue
		}
		// What left the front: the first kept element's position in prev.
		drop := 0
		if len(c.Elems) > 0 && len(p.Elems) > 0 && !bytes.Equal(c.Elems[0], p.Elems[0]) {
			drop = len(p.Elems)
			for j := 1; j < len(p.Elems); j++ {
				if bytes.Equal(p.Elems[j], c.Elems[0]) {
					drop = j
					break
				}
			}
		}
		old := p.Elems[min(drop, len(p.Elems)):]
		set := map[string]json.RawMessage{}
		for j, e := range c.Elems {
			if j >= len(old) || !bytes.Equal(old[j], e) {
				set[strconv.Itoa(j)] = e
			}
		}
		if drop == 0 && len(set) == 0 && len(c.Elems) == len(p.Elems) {
			continue
		}
		n := len(c.Elems)
		ops = append(ops, journalOp{Key: c.Key, Drop: drop, Len: &n, Set: set})
	}
	return ops
}

func wholeOp(c accesstest.StatePart) journalOp {
	if !c.List {
		return journalOp{Key: c.Key, Value: c.Value}
	}
	v := snapshotOf([]accesstest.StatePart{{Key: "x", List: true, Elems: c.Elems}})
	var m map[string]json.RawMessage
	_ = json.Unmarshal(v, &m)
	return journalOp{Key: c.Key, Value: m["x"]}
}

// journalLine encodes ops as one line of the journal.
func journalLine(ops []journalOp) ([]byte, error) {
	b, err := json.Marshal(ops)
	if err != nil {
		return nil, err
	}
	line := make([]byte, 0, len(b)+10)
	line = fmt.Appendf(line, "%08x ", crc32.ChecksumIEEE(b))
	line = append(line, b...)
	return append(line, '\n'), nil
}

// snapshotDigest is the journal's first line for a snapshot.
func snapshotDigest(snapshot []byte) string {
	d := sha256.Sum256(snapshot)
	return hex.EncodeToString(d[:])
}

// replayJournal applies the journal at jpath to snapshot and returns the
// document to load; a missing or stale journal leaves snapshot as it is.
func replayJournal(snapshot []byte, jpath string) ([]byte, error) {
	f, err := os.Open(jpath)
	if errors.Is(err, fs.ErrNotExist) {
		return snapshot, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	r := bufio.NewReaderSize(f, 1<<20)
	head, err := r.ReadString('\n')
	if err != nil || head[:len(head)-1] != snapshotDigest(snapshot) {
		return snapshot, nil // stale or torn at its start: the snapshot holds it all
	}
	var doc map[string]json.RawMessage
	if err := json.Unmarshal(snapshot, &doc); err != nil {
		return nil, err
	}
	lists := map[string][]json.RawMessage{}
	applied := 0
	for {
		line, err := r.ReadBytes('\n')
		if err != nil {
			break // the end, or a torn last line: never acknowledged
		}
		crc, body, ok := bytes.Cut(line[:len(line)-1], []byte(" "))
		if !ok || string(crc) != fmt.Sprintf("%08x", crc32.ChecksumIEEE(body)) {
			break
		}
		var ops []journalOp
		if err := json.Unmarshal(body, &ops); err != nil {
			break
		}
		for _, op := range ops {
			if op.Len == nil {
				doc[op.Key] = op.Value
				delete(lists, op.Key)
				continue
			}
			list, ok := lists[op.Key]
			if !ok {
				if err := json.Unmarshal(doc[op.Key], &list); err != nil {
					return nil, fmt.Errorf("journal line %d: %s is not a list: %v", applied+1, op.Key, err)
				}
			}
			list = list[min(op.Drop, len(list)):]
			if *op.Len <= len(list) {
				list = list[:*op.Len]
			} else {
				list = append(list, make([]json.RawMessage, *op.Len-len(list))...)
			}
			for k, v := range op.Set {
				j, err := strconv.Atoi(k)
				if err != nil || j < 0 || j >= len(list) {
					return nil, fmt.Errorf("journal line %d: %s: bad position %q", applied+1, op.Key, k)
				}
				list[j] = v
			}
			lists[op.Key] = list
		}
		applied++
	}
	for k, list := range lists {
		for j, e := range list {
			if e == nil {
				return nil, fmt.Errorf("journal: %s[%d] is missing", k, j)
			}
		}
		b, err := json.Marshal(list)
		if err != nil {
			return nil, err
		}
		doc[k] = b
	}
	return json.Marshal(doc)
}

// saveJournal is a durable save with the journal: one line of what
// changed since the last save, appended and synced, or a compaction
// (a new snapshot and journal) at the first save, after a failed one,
// and when the journal has outgrown the snapshot. The caller holds
// fileMu.
func (sv *saver) saveJournal() error {
	parts, err := sv.parts.StateParts()
	if err != nil {
		return err
	}
	if sv.prev == nil || sv.journal == nil || sv.journalSize > max(sv.snapSize, 1<<20) {
		return sv.compact(parts)
	}
	ops := diffParts(sv.prev, parts)
	if len(ops) == 0 {
		return nil
	}
	line, err := journalLine(ops)
	if err != nil {
		return err
	}
	if _, err = sv.journal.Write(line); err == nil {
		err = sv.journal.Sync()
	}
	if err != nil {
		sv.prev = nil // the journal may end in part of a line: the next save compacts
		return err
	}
	sv.journalSize += int64(len(line))
	sv.prev = parts
	return nil
}

// compact writes parts as the new snapshot, then a new journal naming
// it. The caller holds fileMu.
func (sv *saver) compact(parts []accesstest.StatePart) error {
	sv.prev = nil
	snap := snapshotOf(parts)
	if err := atomicfile.WriteFile(sv.path, snap, 0o600); err != nil {
		return err
	}
	if sv.journal != nil {
		// The old journal is replaced next: never appended to again.
		_ = sv.journal.Close()
		sv.journal = nil
	}
	head := snapshotDigest(snap) + "\n"
	jpath := journalPath(sv.path)
	if err := atomicfile.WriteFile(jpath, []byte(head), 0o600); err != nil {
		return err
	}
	// Opened again for the lines appended next (the caller holds the
	// state file's lock: no other process replaced it); when it cannot
	// be, the next save compacts again.
	j, err := os.OpenFile(jpath, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		return err
	}
	sv.journal, sv.prev = j, parts
	sv.snapSize, sv.journalSize = int64(len(snap)), int64(len(head))
	return nil
}
