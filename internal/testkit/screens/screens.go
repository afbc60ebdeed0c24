// Package screens holds the GraphQL operations of the screens clients show
// most, which the cost tests pin and the bench tool measures.
package screens

// Group is a group's screen: its members, its latest expenses with their
// payers and beneficiaries, its balances and who owes whom ($g: the group).
const Group = `query($g: ID!) { group(id: $g) {
	id title currency memberCount
	members(first: 50) { nodes { id userId name username } }
	expenses(first: 20) { pageInfo { hasNextPage endCursor } nodes { id description amount currency createdAt
		payer { id name } payers { amount member { id name } } splits { amount member { id name } } } }
	balances { currency net member { id name } }
	debts { amount currency from { id name } to { id name } }
} }`

// Home is the viewer's home: their groups with their balances, what they
// owe and are owed in total, and what they paid lately.
const Home = `query { me { id
	groups(first: 30) { nodes { id title currency balances { currency net member { id } } } }
	summary { totals { currency youAreOwed youOwe net } }
	activity(first: 20) { nodes { ... on Expense { id description amount } ... on Settlement { id amount } } }
} }`

// Owes is what the viewer owes across their groups, with each expense's
// description, payer and group.
const Owes = `query { me { owes(first: 50) { nodes { amount expense { description } payer { name } group { title } } } } }`

// ByID refetches expenses by id ($ids: up to 100 of them).
const ByID = `query($ids: [ID!]!) { nodes(ids: $ids) { ... on Expense { id description amount } } }`
