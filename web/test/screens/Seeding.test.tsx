// @vitest-environment jsdom
// The seeding screen says what is happening and each seat's state; the deal check shows each
// seat's contribution to the deal key, shortened, and which seat withheld.
import { cleanup, render, screen, within } from "@testing-library/preact";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { SeedingView } from "../../src/entropy";
import { setLang } from "../../src/i18n";
import { defaultsOf, fieldsOf } from "../../src/schemaform";
import { Contributions, FirstDeal } from "../../src/screens/GameOver";
import { SeedingScreen } from "../../src/screens/Seeding";
import type { GameView } from "../../src/types";
import { view } from "../fixtures";

beforeEach(() => setLang("en"));
afterEach(cleanup);

const DEADLINE = "2026-12-05T10:00:10.000Z";
const seeding = (entropy: Omit<NonNullable<SeedingView["entropy"]>, "deadline">): SeedingView =>
  ({ ...view({ status: "seeding" as GameView["status"], hand: [], turn: null }), entropy: { ...entropy, deadline: DEADLINE } }) as SeedingView;

describe("the seeding screen", () => {
  it("explains the step and shows each seat's state", () => {
    render(<SeedingScreen view={seeding({ phase: "reveal", committed: [0, 1, 2], revealed: [1] })} own="working" />);
    expect(screen.getByText(/nobody — not even the server — chooses the cards/)).toBeTruthy();
    expect(screen.getByText("Step 2 of 2: numbers revealed")).toBeTruthy();
    expect(within(screen.getByTestId("seeding-seat-0")).getByText("committed")).toBeTruthy();
    expect(within(screen.getByTestId("seeding-seat-1")).getByText("revealed")).toBeTruthy();
    expect(within(screen.getByTestId("seeding-seat-3")).getByText("waiting")).toBeTruthy();
    expect(screen.getByTestId("seeding-seat-0").textContent).toMatch(/alice \(you\)/);
    expect(screen.queryByTestId("seeding-lost")).toBeNull();
  });

  it("says so when this browser lost the value", () => {
    render(<SeedingScreen view={seeding({ phase: "reveal", committed: [0], revealed: [] })} own="lost" />);
    expect(screen.getByRole("alert").textContent).toMatch(/your seat adds nothing this time/);
  });

  it("speaks Italian", () => {
    setLang("it");
    render(<SeedingScreen view={seeding({ phase: "commit", committed: [], revealed: [] })} own="working" />);
    expect(screen.getByText("Passo 1 di 2: impronte")).toBeTruthy();
    expect(within(screen.getByTestId("seeding-seat-2")).getByText("in attesa")).toBeTruthy();
  });

  it("calls the commitment an impronta in Italian, never an impegno", () => {
    setLang("it");
    render(<SeedingScreen view={seeding({ phase: "reveal", committed: [0, 1], revealed: [] })} own="working" />);
    expect(within(screen.getByTestId("seeding-seat-0")).getByText("impronta inviata")).toBeTruthy();
    expect(screen.getByText(/^Impronta del seed:/)).toBeTruthy();
    expect(document.body.textContent).not.toMatch(/impegn/i);
  });
});

describe("the contributions in the deal check", () => {
  it("shows each value shortened and names the seat that withheld", () => {
    render(
      <Contributions
        contributions={[
          { seat: 0, value: "01".repeat(32) },
          { seat: 1, value: "02".repeat(32) },
          { seat: 2, value: "03".repeat(32) },
          { seat: 3, value: null, reason: "no_reveal" },
        ]}
        names={["alice", "bob", "carol", "dave"]}
      />,
    );
    expect(screen.getByTestId("contribution-0").textContent).toBe("Seat 1 (alice) 010101…010101");
    expect(screen.getByTestId("contribution-3").textContent).toBe("Seat 4 (dave) withheld");
    expect(screen.getByText("Withheld (counted as zeros): seat 4 (dave).")).toBeTruthy();
  });

  it("names who dealt first and who led, seats counted from 1", () => {
    const names = ["alice", "bob", "carol", "dave"];
    const { unmount } = render(<FirstDeal first={{ seat: 3, drawn: true }} names={names} />);
    expect(screen.getByTestId("first-dealer").textContent).toBe(
      "Seat 4 (dave) dealt the first hand, drawn by lot from the seed, and seat 1 (alice) led it; the deal then passed to the next seat each hand.",
    );
    unmount();
    render(<FirstDeal first={{ seat: 3, drawn: false }} names={names} />);
    expect(screen.getByTestId("first-dealer").textContent).toBe(
      "Seat 1 (alice) led the first hand: this game is older than the draw of the first dealer.",
    );
  });
});

describe("the create form", () => {
  const schema = {
    type: "object" as const,
    properties: { player_entropy: { type: "boolean" as const, default: false, title: "Player entropy", description: "server words" } },
  };
  it("shows no field for an option the server sets, and sends none", () => {
    const withDealer = {
      ...schema,
      properties: { ...schema.properties, first_dealer: { type: "string", const: "drawn", default: "drawn", readOnly: true } },
    };
    expect(fieldsOf(withDealer).map((f) => f.key)).toEqual(["player_entropy"]);
    expect(defaultsOf(withDealer)).toEqual({ player_entropy: true });
  });

  it("turns the players' entropy on by default, with one sentence on what it means", () => {
    expect(defaultsOf(schema)).toEqual({ player_entropy: true });
    expect(fieldsOf(schema)[0].description).toBe(
      "Every player adds a secret random number to the shuffle, so nobody — not even the server — chooses the cards.",
    );
  });
});
