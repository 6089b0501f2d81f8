package access

import "context"

// HolidayGroupsService lists holiday groups. Get it from
// [Client.HolidayGroups].
type HolidayGroupsService service

// List fetches all holiday groups (the list is not paged). Holidays
// themselves appear in a schedule's [Schedule.HolidayGroup].
//
// API: GET /api/v1/developer/access_policies/holiday_groups (permission view:policy)
func (s *HolidayGroupsService) List(ctx context.Context) ([]HolidayGroupSummary, *Response, error) {
	return list[HolidayGroupSummary](ctx, s.client, "/access_policies/holiday_groups", nil)
}
