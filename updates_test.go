package access_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/access-dev/access"
	"github.com/access-dev/access/accesstest"
)

// Every update type keeps a nil member, sets a non-nil one and clears a
// member set to its empty value, end to end against the fake (the wire
// form is checked by the wire tests).

func TestUserUpdateKeepSetClear(t *testing.T) {
	t.Parallel()
	srv := accesstest.New(t)
	c := srv.Client()
	ctx := context.Background()
	onboard := time.Date(2024, 3, 1, 9, 30, 15, 0, time.UTC)
	u, _, err := c.Users.Create(ctx, &access.UserRequest{FirstName: "Ada", LastName: "Lovelace", UserEmail: "ada@example.com",
		EmployeeNumber: "E1", OnboardTime: onboard})
	require.NoError(t, err)
	got, _ := srv.User(u.ID)
	assert.Equal(t, onboard, got.OnboardTime.Time(), "time.Time in, Unix seconds on the wire")

	// keep everything but the employee number, clear the email
	_, err = c.Users.Update(ctx, u.ID, &access.UserUpdate{EmployeeNumber: access.Ptr("E2"), UserEmail: access.Ptr("")})
	require.NoError(t, err)
	got, _ = srv.User(u.ID)
	assert.Equal(t, "Ada", got.FirstName)
	assert.Equal(t, "E2", got.EmployeeNumber)
	assert.Empty(t, got.UserEmail)
	assert.Equal(t, onboard, got.OnboardTime.Time())
	assert.Equal(t, access.UserStatusActive, got.Status)

	// clear the onboarding time, set the status
	_, err = c.Users.Update(ctx, u.ID, &access.UserUpdate{OnboardTime: access.Ptr(time.Time{}), Status: access.Ptr(access.UserStatusDeactivated)})
	require.NoError(t, err)
	got, _ = srv.User(u.ID)
	assert.True(t, got.OnboardTime.IsZero())
	assert.Equal(t, access.UserStatusDeactivated, got.Status)
	assert.Equal(t, "E2", got.EmployeeNumber)
}

func TestUserGroupUpdateKeepsOrMovesTheParent(t *testing.T) {
	t.Parallel()
	srv := accesstest.New(t)
	c := srv.Client()
	ctx := context.Background()
	eng, _, err := c.UserGroups.CreateAndGet(ctx, &access.UserGroupRequest{Name: "Engineering"})
	require.NoError(t, err)
	fw, _, err := c.UserGroups.CreateAndGet(ctx, &access.UserGroupRequest{Name: "Firmware", UpID: eng.ID})
	require.NoError(t, err)

	_, err = c.UserGroups.Update(ctx, fw.ID, &access.UserGroupUpdate{Name: "FW"})
	require.NoError(t, err)
	g, _, err := c.UserGroups.Get(ctx, fw.ID)
	require.NoError(t, err)
	assert.Equal(t, "FW", g.Name)
	assert.Equal(t, eng.ID, g.UpID, "nil UpID keeps the parent")

	_, err = c.UserGroups.Update(ctx, fw.ID, &access.UserGroupUpdate{Name: "FW", UpID: access.Ptr("")})
	require.NoError(t, err)
	g, _, err = c.UserGroups.Get(ctx, fw.ID)
	require.NoError(t, err)
	assert.Empty(t, g.UpID, "Ptr(\"\") moves it to the top")
}

func TestHolidayGroupUpdateKeepSetClear(t *testing.T) {
	t.Parallel()
	srv := accesstest.New(t)
	c := srv.Client()
	ctx := context.Background()
	day := time.Date(2026, 12, 25, 0, 0, 0, 0, time.UTC)
	g, _, err := c.HolidayGroups.Create(ctx, &access.HolidayGroupRequest{Name: "Swiss", Description: "CH",
		Holidays: []access.HolidayRequest{{Name: "Christmas", StartTime: day, EndTime: day.Add(24 * time.Hour)}}})
	require.NoError(t, err)

	up, _, err := c.HolidayGroups.Update(ctx, g.ID, &access.HolidayGroupUpdate{Name: "Swiss 2026"})
	require.NoError(t, err)
	assert.Equal(t, "Swiss 2026", up.Name)
	assert.Equal(t, "CH", up.Description, "nil Description keeps it")
	require.Len(t, up.Holidays, 1, "nil Holidays keeps them")

	up, _, err = c.HolidayGroups.Update(ctx, g.ID, &access.HolidayGroupUpdate{Name: "Swiss 2026", Description: access.Ptr(""),
		Holidays: []access.HolidayRequest{}})
	require.NoError(t, err)
	assert.Empty(t, up.Description)
	assert.Empty(t, up.Holidays, "an empty, non-nil Holidays removes them all")
}

func TestScheduleUpdateKeepSetClear(t *testing.T) {
	t.Parallel()
	srv := accesstest.New(t)
	c := srv.Client()
	ctx := context.Background()
	hg, _, err := c.HolidayGroups.Create(ctx, &access.HolidayGroupRequest{Name: "Public"})
	require.NoError(t, err)
	office := []access.TimeRange{{StartTime: "08:00:00", EndTime: "17:00:59"}}
	s, _, err := c.Schedules.Create(ctx, &access.ScheduleRequest{Name: "Office", WeekSchedule: &access.WeekSchedule{Monday: office},
		HolidayGroupID: hg.ID, HolidaySchedule: []access.TimeRange{{StartTime: "09:00:00", EndTime: "12:00:59"}}})
	require.NoError(t, err)

	_, err = c.Schedules.Update(ctx, s.ID, &access.ScheduleUpdate{Name: access.Ptr("Office hours")})
	require.NoError(t, err)
	got, _, err := c.Schedules.Get(ctx, s.ID)
	require.NoError(t, err)
	assert.Equal(t, "Office hours", got.Name)
	assert.Equal(t, hg.ID, got.HolidayGroupID)
	assert.Len(t, got.HolidaySchedule, 1)
	require.NotNil(t, got.WeekSchedule)
	assert.Equal(t, office, got.WeekSchedule.Monday)

	_, err = c.Schedules.Update(ctx, s.ID, &access.ScheduleUpdate{HolidayGroupID: access.Ptr(""), HolidaySchedule: []access.TimeRange{}})
	require.NoError(t, err)
	got, _, err = c.Schedules.Get(ctx, s.ID)
	require.NoError(t, err)
	assert.Empty(t, got.HolidayGroupID)
	assert.Empty(t, got.HolidaySchedule)
	assert.Equal(t, "Office hours", got.Name)
}
