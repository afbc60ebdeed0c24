// Trusted documents through Apollo Client's persisted query link. Run by
// httpapi/clients_test.go (TestRealClientsTrustedDocuments) twice: first
// with FRACTI_MANIFEST_OUT, against a server with automatic persisted
// queries, to write the manifest of the operations exactly as Apollo Client
// sends them (its build step); then against a server that runs only that
// manifest.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { ApolloClient, InMemoryCache, HttpLink, gql } from '@apollo/client';
import { PersistedQueryLink } from '@apollo/client/link/persisted-queries';
import { print } from '@apollo/client/utilities';

const url = process.env.FRACTI_URL;
const token = process.env.FRACTI_TOKEN_ALICE;
const manifestOut = process.env.FRACTI_MANIFEST_OUT;

const ME = gql`query Me { me { id name } }`;
const CREATE_GROUP = gql`mutation CreateGroup($t: String!) { createGroup(input: {title: $t, currency: "USD"}) { id title } }`;
const GROUP = gql`query Group($g: ID!) { group(id: $g) { id title members { nodes { id name } } } }`;
const NOT_LISTED = gql`query NotListed { me { id username } }`;

const sha256 = (s) => createHash('sha256').update(s).digest('hex');

// client is Apollo Client with the persisted query link; sent collects the
// bodies it posts, and registered the documents it hashes.
function client(sent, registered) {
  const http = new HttpLink({
    uri: url,
    headers: { Authorization: `Bearer ${token}` },
    fetch: (u, init) => { sent.push(JSON.parse(init.body)); return fetch(u, init); },
  });
  const persisted = new PersistedQueryLink({
    generateHash: (doc) => {
      const body = print(doc);
      registered.set(sha256(body), { body, doc });
      return sha256(body);
    },
  });
  return new ApolloClient({ link: persisted.concat(http), cache: new InMemoryCache() });
}

async function useTheApp(c) {
  const { data: me } = await c.query({ query: ME, fetchPolicy: 'network-only' });
  const { data: created } = await c.mutate({ mutation: CREATE_GROUP, variables: { t: 'Trusted trip' } });
  const { data: group } = await c.query({ query: GROUP, variables: { g: created.createGroup.id }, fetchPolicy: 'network-only' });
  return { me, created, group };
}

if (manifestOut) {
  test('build step: the manifest of the operations as Apollo Client sends them', async () => {
    const registered = new Map();
    await useTheApp(client([], registered));
    const operations = [...registered].map(([id, { body, doc }]) => {
      const def = doc.definitions.find((d) => d.kind === 'OperationDefinition');
      return { id, name: def.name.value, type: def.operation, body };
    });
    assert.equal(operations.length, 3);
    writeFileSync(manifestOut, JSON.stringify({ format: 'apollo-persisted-query-manifest', version: 1, operations }, null, 2));
  });
} else {
  test('Apollo Client runs the trusted documents by their hash alone', async () => {
    const sent = [];
    const { me, created, group } = await useTheApp(client(sent, new Map()));
    assert.equal(me.me.name, 'ALICE');
    assert.equal(created.createGroup.title, 'Trusted trip');
    assert.deepEqual(group.group.members.nodes.map((m) => m.name), ['ALICE']);
    assert.equal(sent.length, 3, 'one request per operation');
    for (const body of sent) {
      assert.equal(body.query, undefined, 'no document text on the wire');
      assert.match(body.extensions.persistedQuery.sha256Hash, /^[0-9a-f]{64}$/);
    }
  });

  test('an operation outside the manifest fails with PERSISTED_QUERY_NOT_IN_LIST, and Apollo does not resend it in full', async () => {
    const sent = [];
    await assert.rejects(client(sent, new Map()).query({ query: NOT_LISTED, fetchPolicy: 'network-only' }), (err) => {
      assert.equal(err.errors?.[0]?.extensions?.code, 'PERSISTED_QUERY_NOT_IN_LIST', String(err));
      return true;
    });
    assert.equal(sent.length, 1, 'no retry with the query text');
  });

  test('the document in full is refused too', async () => {
    const res = await fetch(url, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${token}` },
      body: JSON.stringify({ query: print(NOT_LISTED) }),
    });
    const body = await res.json();
    assert.equal(body.errors[0].extensions.code, 'QUERY_NOT_IN_SAFELIST');
    assert.equal(body.data, undefined);
  });
}
