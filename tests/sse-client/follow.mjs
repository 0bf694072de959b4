// Follows one Parley event feed with an off-the-shelf WHATWG EventSource (the
// `eventsource` package, as a browser's EventSource behaves: no custom headers, automatic
// reconnection with Last-Event-ID) and prints what happened as one JSON line.
//
//   node follow.mjs URL [MAX_MS]
//
// URL carries its credential as `?access_token=` (a feed token). The script stops when
// the EventSource closes for good (e.g. the server answered 204) or after MAX_MS
// (default 20000), and reports every connection it made (status, the Last-Event-ID it
// sent) and every event it received (type, id, parsed data).
import { EventSource } from 'eventsource';

const [url, maxMs = '20000'] = process.argv.slice(2);
// `error` is both an event type of the feed and the EventSource's own failure event:
// it is handled below.
const TYPES = [
  'prompt_state', 'status', 'block_start', 'text_delta', 'thinking_delta', 'block_stop',
  'tool_start', 'tool_progress', 'tool_complete', 'retry', 'complete', 'cancelled', 'ping',
];
const report = { connections: [], events: [], errors: [], closed: false };

const recordingFetch = async (input, init) => {
  const headers = new Headers(init?.headers);
  const connection = { last_event_id: headers.get('last-event-id'), status: null };
  report.connections.push(connection);
  const response = await fetch(input, init);
  connection.status = response.status;
  return response;
};

const source = new EventSource(url, { fetch: recordingFetch });
for (const type of TYPES) {
  source.addEventListener(type, (event) => {
    report.events.push({ type, id: event.lastEventId, data: JSON.parse(event.data) });
  });
}
source.addEventListener('error', (event) => {
  if (typeof event.data === 'string') {
    report.events.push({ type: 'error', id: event.lastEventId, data: JSON.parse(event.data) });
    return;
  }
  report.errors.push({ message: event.message ?? null, code: event.code ?? null });
  if (source.readyState === source.CLOSED) finish();
});

const timer = setTimeout(finish, Number(maxMs));

function finish() {
  clearTimeout(timer);
  report.closed = source.readyState === source.CLOSED;
  source.close();
  process.stdout.write(JSON.stringify(report) + '\n');
  process.exit(0);
}
