package model

// User is the signed-in user as the credentials describe them. Their lists
// (groups, expenses paid, …) are resolved on demand.
type User struct {
	ID       string
	Name     string
	Username *string
}
