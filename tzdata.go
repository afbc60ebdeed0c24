package main

// The distroless image has no zone database: groups' time zones
// (Group.timeZone) are loaded from the copy embedded in the binary.
import _ "time/tzdata"
