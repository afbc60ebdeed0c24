// Queries, mutations and subscriptions over plain HTTP through the clients'
// own defaults: urql's fetchExchange, Apollo Client's HttpLink and the
// graphql-sse client. No Accept header is set here: each client sends its
// own, and gets JSON for a query or a mutation and a stream for a
// subscription. Run by httpapi/clients_test.go (TestRealClientsHTTP) against
// a server with live updates, with FRACTI_URL and two users' tokens.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { ApolloClient, InMemoryCache, HttpLink, gql } from '@apollo/client';
import { Client, cacheExchange, fetchExchange } from '@urql/core';
import { createClient } from 'graphql-sse';

const url = process.env.FRACTI_URL;
const tokens = { alice: process.env.FRACTI_TOKEN_ALICE, bob: process.env.FRACTI_TOKEN_BOB };
const ids = { alice: process.env.FRACTI_USER_ALICE, bob: process.env.FRACTI_USER_BOB };

// A rejection nobody handles crashes a script (urql's aborted event stream
// did, when queries were streamed): each is recorded, and the last test
// checks that there was none.
const unhandled = [];
process.on('unhandledRejection', (reason) => unhandled.push(reason));

// recorder is a fetch that remembers, for each request, the Accept header
// the client sent and the Content-Type it got back. It changes nothing.
function recorder() {
  const seen = [];
  const recording = async (input, init) => {
    const res = await fetch(input, init);
    seen.push({ accept: new Headers(init?.headers).get('accept'), type: res.headers.get('content-type') });
    return res;
  };
  return { fetch: recording, seen };
}

const ME = 'query Me { me { id } }';
const CREATE_GROUP = 'mutation CreateGroup($t: String!) { createGroup(input: {title: $t, currency: "USD"}) { id title } }';
const GROUP_EVENTS = 'subscription GroupEvents($g: ID!) { groupEvents(groupId: $g) { id type } }';

// spend: Alice pays amount for herself in group, over a plain request.
async function spend(group, description) {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${tokens.alice}` },
    body: JSON.stringify({
      query: 'mutation($in: CreateExpenseInput!) { createExpense(input: $in) { id } }',
      variables: { in: { groupId: group, amount: '1', description, splitType: 'EQUAL', splits: [{ userId: ids.alice }] } },
    }),
  });
  const body = await res.json();
  assert.equal(body.errors, undefined, JSON.stringify(body.errors));
}

// untilEvent spends in group until got resolves, and returns what it
// resolved with: a stream's subscription may register a moment after its
// response has begun, so one expense could come too early.
async function untilEvent(group, got, what) {
  for (let i = 0; i < 40; i++) {
    await spend(group, what);
    const event = await Promise.race([got, sleep(250).then(() => undefined)]);
    if (event) return event;
  }
  throw new Error(`no event came: ${what}`);
}

// deferred is a promise with its resolve and reject.
function deferred() {
  let resolve, reject;
  const promise = new Promise((res, rej) => { resolve = res; reject = rej; });
  return { promise, resolve, reject };
}

test('urql: fetchExchange gets JSON for a query and a mutation, server-sent events for a subscription', async () => {
  const rec = recorder();
  const client = new Client({
    url,
    exchanges: [cacheExchange, fetchExchange],
    fetchSubscriptions: true,
    fetch: rec.fetch,
    fetchOptions: { headers: { Authorization: `Bearer ${tokens.alice}` } },
  });

  const me = await client.query(ME, {}).toPromise();
  assert.equal(me.error, undefined);
  assert.equal(me.data.me.id, ids.alice);
  const made = await client.mutation(CREATE_GROUP, { t: 'urql over HTTP' }).toPromise();
  assert.equal(made.error, undefined);
  const group = made.data.createGroup.id;

  const got = deferred();
  const sub = client.subscription(GROUP_EVENTS, { g: group }).subscribe((r) => {
    if (r.error) got.reject(r.error);
    else if (r.data?.groupEvents?.type === 'EXPENSE_CREATED') got.resolve(r.data.groupEvents);
  });
  const event = await untilEvent(group, got.promise, 'urql');
  sub.unsubscribe();
  assert.ok(event.id.startsWith(`${group}:`));

  assert.equal(rec.seen.length, 3);
  for (const s of rec.seen) assert.match(s.accept, /text\/event-stream/, 'urql\'s own Accept lists event streams every time');
  assert.deepEqual(rec.seen.map((s) => s.type.split(';')[0]),
    ['application/graphql-response+json', 'application/graphql-response+json', 'text/event-stream']);
});

test('Apollo: HttpLink gets JSON for a query and a mutation, a multipart subscription for a subscription', async () => {
  const rec = recorder();
  const client = new ApolloClient({
    link: new HttpLink({ uri: url, headers: { Authorization: `Bearer ${tokens.alice}` }, fetch: rec.fetch }),
    cache: new InMemoryCache(),
  });

  const me = await client.query({ query: gql(ME) });
  assert.equal(me.data.me.id, ids.alice);
  const made = await client.mutate({ mutation: gql(CREATE_GROUP), variables: { t: 'Apollo over HTTP' } });
  const group = made.data.createGroup.id;

  const got = deferred();
  const sub = client.subscribe({ query: gql(GROUP_EVENTS), variables: { g: group } }).subscribe({
    next: (r) => {
      if (r.error) got.reject(r.error);
      else if (r.data?.groupEvents?.type === 'EXPENSE_CREATED') got.resolve(r.data.groupEvents);
    },
    error: (e) => got.reject(e),
  });
  const event = await untilEvent(group, got.promise, 'Apollo');
  sub.unsubscribe();
  assert.ok(event.id.startsWith(`${group}:`));

  assert.equal(rec.seen.length, 3);
  assert.match(rec.seen[2].accept, /^multipart\/mixed;boundary=graphql;subscriptionSpec=1\.0/, 'Apollo\'s own Accept for a subscription');
  assert.deepEqual(rec.seen.map((s) => s.type.split(';')[0]),
    ['application/graphql-response+json', 'application/graphql-response+json', 'multipart/mixed']);

  // A subscription refused as it starts reaches Apollo as its error.
  const bob = new ApolloClient({
    link: new HttpLink({ uri: url, headers: { Authorization: `Bearer ${tokens.bob}` } }),
    cache: new InMemoryCache(),
  });
  const refused = deferred();
  bob.subscribe({ query: gql(GROUP_EVENTS), variables: { g: group } }).subscribe({
    next: (r) => (r.error ? refused.resolve(r.error) : refused.reject(new Error(`a result: ${JSON.stringify(r)}`))),
    error: (e) => refused.resolve(e),
  });
  const err = await refused.promise;
  assert.equal(err.errors?.[0]?.extensions?.code, 'NOT_FOUND', String(err));
});

test('graphql-sse: a query, a mutation and a subscription, each a stream', async () => {
  const rec = recorder();
  const client = createClient({ url, headers: { Authorization: `Bearer ${tokens.alice}` }, fetchFn: rec.fetch, retryAttempts: 0 });
  // first is the first result of an operation; the stream is closed after.
  const first = async (query, variables) => {
    const results = client.iterate({ query, variables });
    const { value } = await results.next();
    await results.return();
    return value;
  };

  const me = await first(ME);
  assert.equal(me.errors, undefined);
  assert.equal(me.data.me.id, ids.alice);
  const made = await first(CREATE_GROUP, { t: 'graphql-sse' });
  assert.equal(made.errors, undefined);
  const group = made.data.createGroup.id;

  const got = deferred();
  const dispose = client.subscribe({ query: GROUP_EVENTS, variables: { g: group } }, {
    next: (r) => {
      if (r.errors) got.reject(new Error(JSON.stringify(r.errors)));
      else if (r.data?.groupEvents?.type === 'EXPENSE_CREATED') got.resolve(r.data.groupEvents);
    },
    error: (e) => got.reject(e),
    complete: () => {},
  });
  const event = await untilEvent(group, got.promise, 'graphql-sse');
  dispose();
  assert.ok(event.id.startsWith(`${group}:`));

  assert.equal(rec.seen.length, 3);
  for (const s of rec.seen) {
    assert.equal(s.accept, 'text/event-stream', 'graphql-sse\'s own Accept');
    assert.match(s.type, /^text\/event-stream/);
  }
});

test('no rejection went unhandled', async () => {
  await sleep(0);
  assert.deepEqual(unhandled.map(String), []);
});
