package access

import "context"

// SchedulesService fetches access schedules. Get it from [Client.Schedules].
type SchedulesService service

// Get fetches the schedule with the given id, with its week, holiday
// schedule and holiday group.
//
// API: GET /api/v1/developer/access_policies/schedules/{id} (permission view:policy)
func (s *SchedulesService) Get(ctx context.Context, id string) (*Schedule, *Response, error) {
	if err := checkID("Schedules.Get", "id", id); err != nil {
		return nil, nil, err
	}
	return call[Schedule](ctx, s.client, "GET", "/access_policies/schedules/"+pathSeg(id), nil, nil, true)
}
