/**
 * The user's feed (`GET /v1/feed`, architecture §8) keeps the page current with what
 * happens elsewhere: another tab's turn streams into the open session, a timer's notice
 * appears in it, titles, renames, pins and deletions reach the sidebar. The feed opens
 * with a user feed token (`POST /v1/feed/token`, asked for on each connection).
 *
 * Events are hints, the API is the truth: each one makes the page read what it names
 * again (a list, the branch, the session's streaming state), so events the feed replays
 * when it opens (it starts with the oldest it holds) only cost a read.
 */
import { followUserFeed, type UserEvent } from "../../src/index";
import { baseUrl } from "../common";
import { reloadConversation } from "./conversation";
import { eachExtension, type PageHandle } from "./extensions";
import { scheduleSessionsReload } from "./sidebar";
import { chat, notice } from "./state";
import { turnStartedElsewhere } from "./turns";

/** The page as extensions see it. */
export const page: PageHandle = {
  get client() {
    return chat.client;
  },
  get sessionId() {
    return chat.sessionId;
  },
  reloadConversation: () => void reloadConversation(),
  reloadSessions: scheduleSessionsReload,
};

function handle(event: UserEvent, close: () => void): void {
  eachExtension((x) => x.userEvent?.(event, page));
  const here = "session_id" in event && event.session_id !== undefined && event.session_id === chat.sessionId;
  switch (event.type) {
    case "session_created":
    case "session_updated":
      scheduleSessionsReload();
      break;
    case "session_deleted":
      scheduleSessionsReload();
      if (here) {
        close();
        notice("This chat was deleted.");
      }
      break;
    case "turn_started":
      if (here) void turnStartedElsewhere(event.prompt_id);
      break;
    case "turn_finished":
      scheduleSessionsReload();
      if (here) void reloadConversation();
      break;
    case "timer_fired":
      if (here) void reloadConversation();
      break;
    case "reset":
      scheduleSessionsReload();
      void reloadConversation();
      break;
    default:
      break;
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Follows the feed for as long as the page is open (reconnecting after a pause). */
export async function followFeed(close: () => void): Promise<void> {
  const feedToken = async () => {
    const { data, response } = await chat.client.POST("/v1/feed/token");
    if (!data) throw new Error(`feed token refused (${response.status})`);
    return data.token;
  };
  for (;;) {
    try {
      document.body.dataset.feed = "connecting";
      for await (const event of followUserFeed({ baseUrl, feedToken })) {
        document.body.dataset.feed = "live";
        handle(event, close);
      }
    } catch (err) {
      console.warn("user feed:", err);
    }
    document.body.dataset.feed = "down";
    await sleep(5000);
  }
}
