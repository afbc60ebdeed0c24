// The GraphQL over HTTP spec's own audit suite (graphql-http's
// serverAudits) against the server. Every audit, MUST and SHOULD alike, must
// pass: a warning fails too. Run by httpapi/clients_test.go (`make test`),
// which starts the server and passes FRACTI_URL.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { serverAudits } from 'graphql-http';

const url = process.env.FRACTI_URL;

for (const audit of serverAudits({ url })) {
  test(audit.name, async () => {
    const result = await audit.fn();
    let body = '';
    if (result.status !== 'ok' && result.response) {
      body = ` (HTTP ${result.response.status} ${await result.response.text().catch(() => '')})`;
    }
    assert.equal(result.status, 'ok', `${result.status}: ${result.reason}${body}`);
  });
}
