// Names as links: a person's name opens their page, a bot's stays text; at a table the page opens
// in a new tab; in a history card the names are links of their own beside the link to the match.
import { describe, expect, it } from "vitest";
import { OnlineDot, PlayerLink } from "../src/playerlink";
import { MatchRow } from "../src/screens/History";
import type { MatchItem } from "../src/types";
import { findAll, nameOf, shown, spoken } from "./render";

const links = (node: Parameters<typeof findAll>[0]) => findAll(node, (e) => e.tag === "a");

describe("a player's name", () => {
  it("links to the player's page", () => {
    const [a] = links(<PlayerLink who={{ player: "q3Zr8YkV0bT1mWc9LxPa2g" }}>alice</PlayerLink>);
    expect(a.props.href).toBe("/players/q3Zr8YkV0bT1mWc9LxPa2g");
    expect(nameOf(a)).toBe("alice");
    expect(a.props.target).toBeUndefined();
  });

  it("is text for a bot", () => {
    const node = <PlayerLink who={{ bot: "esperto" }}>Bruno</PlayerLink>;
    expect(links(node)).toHaveLength(0);
    expect(shown(node)).toBe("Bruno");
  });

  it("opens beside the table when asked (the hand goes on)", () => {
    const [a] = links(<PlayerLink who={{ player: "q3Zr8YkV0bT1mWc9LxPa2g" }} newTab>alice</PlayerLink>);
    expect(a.props.target).toBe("_blank");
    expect(a.props.rel).toBe("noopener");
  });
});

describe("the online dot", () => {
  it("says online or offline to a screen reader, and nothing when the player hides it", () => {
    expect(spoken(<OnlineDot online={true} />)).toBe("");
    expect(findAll(<OnlineDot online={true} />, (e) => e.props["aria-label"] === "online")).toHaveLength(1);
    expect(findAll(<OnlineDot online={false} />, (e) => e.props["aria-label"] === "offline")).toHaveLength(1);
    expect(findAll(<OnlineDot online={undefined} />, () => true)).toHaveLength(0);
    // Beside words that say it, the dot is not said twice.
    expect(findAll(<OnlineDot online={true} decorative />, (e) => e.props["aria-hidden"] === "true")).toHaveLength(1);
  });
});

describe("a match card", () => {
  const match: MatchItem = {
    id: "m1", game_type: "scopone_scientifico", started_at: "2026-12-02T10:00:00.000Z",
    finished_at: "2026-12-02T10:20:00.000Z", rated: false, result: { scores: { A: 11, B: 7 }, winner: "A" },
    players: [
      { seat: 0, name: "alice", team: "A", won: true, points: 11, elo_delta: 0, player: "alice-id-0123456789" },
      { seat: 1, name: "Bruno", team: "B", won: false, points: 7, elo_delta: 0, bot: "esperto" },
      { seat: 2, name: "carol", team: "A", won: true, points: 11, elo_delta: 0, player: "carol-id-0123456789" },
      { seat: 3, name: "Dario", team: "B", won: false, points: 7, elo_delta: 0, bot: "esperto" },
    ],
  };

  it("links its head to the match, and each other person's name to their page", () => {
    const node = <MatchRow match={match} reader={{ me: { name: "alice", player: "alice-id-0123456789" } }} types={[]} href="/history/m1" />;
    expect(links(node).map((a) => a.props.href)).toEqual(["/history/m1", "/players/carol-id-0123456789"]);
    expect(shown(node)).toContain("Won");
    expect(shown(node)).toContain("you");
  });

  it("on a player page reads as that player's match, with no link to a match the viewer did not play", () => {
    const node = <MatchRow match={match} reader={{ me: { name: "zoe", player: "zoe-id-0123456789" }, whose: { name: "carol", player: "carol-id-0123456789" } }} types={[]} />;
    expect(links(node).map((a) => a.props.href)).toEqual(["/players/alice-id-0123456789", "/players/carol-id-0123456789"]);
    expect(shown(node)).toMatch(/^Won 11–7/);
  });
});
