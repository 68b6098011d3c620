// For component tests that stub fetch: the URL a call asked for, whatever form it was given in
// (a path string, a URL or a Request), resolved against a stand-in origin.
export function requestedUrl(input: RequestInfo | URL): URL {
  return new URL(input instanceof Request ? input.url : input instanceof URL ? input.href : input, 'http://localhost');
}
