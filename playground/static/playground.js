// The Fracti Playground: GraphiQL talking to this server's GraphQL endpoint,
// queries and mutations over HTTP, subscriptions over a WebSocket to the
// same host (graphql-transport-ws). The headers typed in the Headers tab go
// with every HTTP request and, for a subscription, as the payload of
// connection_init, where the server reads the Authorization header.
(function () {
  'use strict';
  var root = document.getElementById('graphiql');
  var endpoint = root.getAttribute('data-endpoint');
  var socket = new URL(endpoint, location.href);
  socket.protocol = location.protocol === 'https:' ? 'wss:' : 'ws:';

  var fetcher = GraphiQL.createFetcher({ url: endpoint, subscriptionUrl: socket.href });

  var defaultQuery = [
    '# Welcome to the Fracti API.',
    '#',
    '# Every operation but the schema needs credentials: paste them into the',
    '# Headers tab below, as JSON:',
    '#',
    '#   {"Authorization": "Bearer <your access token>"}',
    '#',
    '# (`make run` prints one for a demo user; `go run . token create` makes',
    '# more.) Then run a query with Ctrl-Enter, or the play button:',
    '',
    '{ me { name groups { nodes { id title } } } }',
    '',
    '# Subscriptions work too: run this one, then add an expense in another',
    '# tab, and the event shows on the right.',
    '#',
    '#   subscription { myEvents { type actor { name } subject { __typename } } }',
    ''
  ].join('\n');

  ReactDOM.createRoot(root).render(
    React.createElement(GraphiQL, {
      fetcher: fetcher,
      defaultQuery: defaultQuery,
      isHeadersEditorEnabled: true,
      // Open below the query editor on the Headers tab, where credentials go.
      defaultEditorToolsVisibility: 'headers',
      // A bearer token is not kept in the browser's storage.
      shouldPersistHeaders: false
    })
  );
})();
