package main

import (
	"encoding/json"
	"reflect"
	"slices"
	"testing"
	"time"
)

// fill sets every member of v (a settable value) to a value that is not
// empty, so that its JSON form writes all it can.
func fill(v reflect.Value, depth int) {
	if depth > 3 {
		return
	}
	switch v.Kind() {
	case reflect.String:
		v.SetString("1")
	case reflect.Bool:
		v.SetBool(true)
	case reflect.Int, reflect.Int64, reflect.Int32:
		v.SetInt(1)
	case reflect.Pointer:
		v.Set(reflect.New(v.Type().Elem()))
		fill(v.Elem(), depth+1)
	case reflect.Slice:
		v.Set(reflect.MakeSlice(v.Type(), 1, 1))
		fill(v.Index(0), depth+1)
	case reflect.Map:
		v.Set(reflect.MakeMap(v.Type()))
		k, e := reflect.New(v.Type().Key()).Elem(), reflect.New(v.Type().Elem()).Elem()
		fill(k, depth+1)
		fill(e, depth+1)
		v.SetMapIndex(k, e)
	case reflect.Struct:
		if v.Type() == reflect.TypeOf(time.Time{}) {
			v.Set(reflect.ValueOf(time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)))
			return
		}
		for i := 0; i < v.NumField(); i++ {
			if v.Type().Field(i).IsExported() {
				fill(v.Field(i), depth+1)
			}
		}
	}
}

// TestDataShapeNamesWireMembers: the members "--data: want a JSON object
// with …" lists (and --data is checked against) are the ones each body
// writes on the wire: every member of a filled body's JSON form is listed.
func TestDataShapeNamesWireMembers(t *testing.T) {
	for _, spec := range operations() {
		if spec.body == nil {
			continue
		}
		rt := reflect.TypeOf(spec.body()).Elem()
		if rt.Kind() != reflect.Struct {
			continue
		}
		v := reflect.New(rt)
		fill(v.Elem(), 0)
		b, err := json.Marshal(v.Interface())
		if err != nil {
			t.Errorf("%s: %v", spec.path, err)
			continue
		}
		var obj map[string]json.RawMessage
		if err := json.Unmarshal(b, &obj); err != nil {
			t.Errorf("%s: %s: %v", spec.path, b, err)
			continue
		}
		keys := wireKeys(rt)
		for k := range obj {
			if !slices.Contains(keys, k) {
				t.Errorf("%s: the body writes %q, --data's shape lists %v", spec.path, k, keys)
			}
		}
		if len(obj) == 0 {
			t.Errorf("%s: a filled body wrote nothing: %s", spec.path, b)
		}
	}
}

func TestSnake(t *testing.T) {
	for in, want := range map[string]string{"FirstName": "first_name", "ScheduleID": "schedule_id", "UpID": "up_id",
		"HolidayGroupID": "holiday_group_id", "BTTap": "bt_tap", "Name": "name", "ResourceIDs": "resource_ids"} {
		if got := snake(in); got != want {
			t.Errorf("snake(%q) = %q, want %q", in, got, want)
		}
	}
}
