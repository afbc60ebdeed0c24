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

  // Headers a link brought in its fragment (#headers=<JSON>), where the
  // server allows it: `make run`'s link holds the demo user's token.
  var linkedHeaders = null;
  if (root.getAttribute('data-headers-from-link') === 'true') {
    var fromLink = new URLSearchParams(location.hash.slice(1)).get('headers');
    try {
      var parsed = fromLink && JSON.parse(fromLink);
      if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) linkedHeaders = fromLink;
    } catch (e) {
      // Not JSON: the Headers tab starts empty, as without a link.
    }
  }

  // Lines of at most 50 characters: the text fits the editor's width
  // without scrolling sideways.
  var howToSignIn = linkedHeaders ? [
    '# Your credentials are in the Headers tab below.',
    '# Run the query: Ctrl-Enter, or the play button.'
  ] : [
    '# Every operation but the schema needs',
    '# credentials: paste them into the Headers tab',
    '# below, as JSON:',
    '#',
    '#   {"Authorization": "Bearer <token>"}',
    '#',
    '# (`make run` prints a link that fills it in for',
    '# a demo user; `go run . token create` makes',
    '# tokens.) Then run the query: Ctrl-Enter, or',
    '# the play button.'
  ];
  var defaultQuery = ['# Welcome to the Fracti API.', '#'].concat(howToSignIn, [
    '',
    '{ me { name groups { nodes { id title } } } }',
    '',
    '# Subscriptions work too: run this one, then add',
    '# an expense in another tab to see its event.',
    '#',
    '#   subscription {',
    '#     myEvents { type actor { name } }',
    '#   }',
    ''
  ]).join('\n');

  ReactDOM.createRoot(root).render(
    React.createElement(GraphiQL, {
      fetcher: fetcher,
      defaultQuery: defaultQuery,
      defaultHeaders: linkedHeaders || undefined,
      isHeadersEditorEnabled: true,
      // Open below the query editor on the Headers tab, where credentials go.
      defaultEditorToolsVisibility: 'headers',
      // A bearer token is not kept in the browser's storage.
      shouldPersistHeaders: false
    })
  );
})();
