// The API through the GraphQL clients the Mini App uses: Apollo Client 4 and
// urql 6. Run by httpapi/clients_test.go (`make test`), which starts the
// server and passes FRACTI_URL and two users' access tokens.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ApolloClient, InMemoryCache, HttpLink, gql } from '@apollo/client';
import { relayStylePagination } from '@apollo/client/utilities';
import { Client, cacheExchange, fetchExchange } from '@urql/core';

const url = process.env.FRACTI_URL;
const tokens = { alice: process.env.FRACTI_TOKEN_ALICE, bob: process.env.FRACTI_TOKEN_BOB };
const ids = { alice: process.env.FRACTI_USER_ALICE, bob: process.env.FRACTI_USER_BOB };

function apollo(token) {
  return new ApolloClient({
    link: new HttpLink({ uri: url, headers: { Authorization: `Bearer ${token}` } }),
    cache: new InMemoryCache({
      typePolicies: { Group: { fields: { expenses: relayStylePagination(), members: relayStylePagination() } } },
    }),
  });
}

function urql(token) {
  return new Client({
    url,
    exchanges: [cacheExchange, fetchExchange],
    fetchOptions: () => (token ? { headers: { Authorization: `Bearer ${token}` } } : {}),
  });
}

const CREATE_GROUP = gql`mutation($t: String!) { createGroup(input: {title: $t, currency: "USD"}) { id title } }`;
const INVITE = gql`mutation($g: ID!) { createInvite(groupId: $g, input: {maxUses: 1}) { id secret link } }`;
const JOIN = gql`mutation($i: String!) { joinGroup(invite: $i) { id } }`;
const CREATE_EXPENSE = gql`mutation($in: CreateExpenseInput!) { createExpense(input: $in) { id amount currency splits { id amount member { id name } } } }`;
const EXPENSES = gql`query($g: ID!, $first: Int, $after: String) { group(id: $g) { id expenses(first: $first, after: $after) {
  edges { cursor node { id description amount } } pageInfo { hasNextPage endCursor } } } }`;
const MEMBERS = gql`query($g: ID!) { group(id: $g) { id members { edges { cursor node { id userId wallet } } pageInfo { hasNextPage endCursor } } } }`;
const UPDATE_WALLET = gql`mutation($g: ID!, $w: String!) { updateWallet(groupId: $g, wallet: $w) { id wallet } }`;

test('Apollo: relayStylePagination merges pages, every expense once, newest first', async () => {
  const c = apollo(tokens.alice);
  const { data: created } = await c.mutate({ mutation: CREATE_GROUP, variables: { t: 'Apollo trip' } });
  const group = created.createGroup.id;
  const made = [];
  for (let i = 1; i <= 5; i++) {
    const { data } = await c.mutate({
      mutation: CREATE_EXPENSE,
      variables: { in: { groupId: group, amount: `${i}.5`, description: `expense ${i}`, splitType: 'EQUAL', splits: [{ userId: ids.alice }] } },
    });
    assert.equal(data.createExpense.amount, `${i}.50`, 'amounts are strings with the currency\'s decimals');
    made.unshift(data.createExpense.id);
  }

  let after = null;
  let pages = 0;
  for (;;) {
    const { data } = await c.query({ query: EXPENSES, variables: { g: group, first: 2, after }, fetchPolicy: 'network-only' });
    pages++;
    const info = data.group.expenses.pageInfo;
    if (!info.hasNextPage) break;
    after = info.endCursor;
  }
  assert.equal(pages, 3);
  const merged = c.readQuery({ query: EXPENSES, variables: { g: group, first: 2, after: null } });
  assert.deepEqual(merged.group.expenses.edges.map((e) => e.node.id), made, 'the merged list holds each expense once, in order');
  assert.equal(new Set(merged.group.expenses.edges.map((e) => e.cursor)).size, 5, 'every edge has its own cursor');
});

test('Apollo: the same user in two groups is two Member objects in the cache', async () => {
  const alice = apollo(tokens.alice);
  const bob = apollo(tokens.bob);
  const a = (await alice.mutate({ mutation: CREATE_GROUP, variables: { t: 'A' } })).data.createGroup.id;
  const b = (await alice.mutate({ mutation: CREATE_GROUP, variables: { t: 'B' } })).data.createGroup.id;
  const invite = (await alice.mutate({ mutation: INVITE, variables: { g: a } })).data.createInvite;
  assert.equal(invite.link, null, 'no link without a configured bot');
  await bob.mutate({ mutation: JOIN, variables: { i: invite.secret } });

  const wallet = 'EQBvI0aFLnw2QbZgjMPCLRdtRHxhUyinQudg6sdiohIwg5jL';
  await alice.query({ query: MEMBERS, variables: { g: a } });
  await alice.query({ query: MEMBERS, variables: { g: b } });
  // The mutation's result updates the cached member by its id: no refetch.
  await alice.mutate({ mutation: UPDATE_WALLET, variables: { g: a, w: wallet } });
  const inA = alice.readQuery({ query: MEMBERS, variables: { g: a } }).group.members.edges.map((e) => e.node);
  const inB = alice.readQuery({ query: MEMBERS, variables: { g: b } }).group.members.edges.map((e) => e.node);
  assert.equal(inA.find((m) => m.userId === ids.alice).wallet, wallet);
  assert.equal(inB.find((m) => m.userId === ids.alice).wallet, null, 'the other membership is untouched');
  assert.notEqual(
    alice.cache.identify(inA.find((m) => m.userId === ids.alice)),
    alice.cache.identify(inB.find((m) => m.userId === ids.alice)),
  );
});

test('Apollo: errors carry extensions.code and the field', async () => {
  const c = apollo(tokens.alice);
  const group = (await c.mutate({ mutation: CREATE_GROUP, variables: { t: 'Errors' } })).data.createGroup.id;
  await assert.rejects(
    c.mutate({
      mutation: CREATE_EXPENSE,
      variables: { in: { groupId: group, amount: '1.005', description: 'x', splitType: 'EQUAL', splits: [{ userId: ids.alice }] } },
    }),
    (err) => {
      assert.equal(err.errors[0].extensions.code, 'BAD_USER_INPUT');
      assert.equal(err.errors[0].extensions.field, 'input.amount');
      return true;
    },
  );
});

test('urql: queries, error codes, and no credentials', async () => {
  const me = await urql(tokens.bob).query('{ me { id name summary { totals { currency net } } } }', {}).toPromise();
  assert.equal(me.error, undefined);
  assert.equal(me.data.me.id, ids.bob);

  const bad = await urql(tokens.bob).query('{ me { groups(first: 101) { nodes { id } } } }', {}).toPromise();
  assert.equal(bad.error.graphQLErrors[0].extensions.code, 'BAD_USER_INPUT');

  const anonymous = await urql(null).query('{ me { id } }', {}).toPromise();
  assert.equal(anonymous.error.graphQLErrors[0].extensions.code, 'UNAUTHENTICATED');
  assert.equal(anonymous.data, null);

  const hidden = await urql(tokens.bob).query('query($id: ID!) { group(id: $id) { id } }', { id: '7d9c1f4e-0000-4000-8000-000000000000' }).toPromise();
  assert.equal(hidden.error, undefined);
  assert.equal(hidden.data.group, null);
});
