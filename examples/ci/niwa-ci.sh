#!/bin/sh
# Gate a bot on its previous version, then submit it: the commands of niwa-bot.yml.
#   niwa-ci.sh NEW_DIR OLD_DIR
# Environment: NIWA_GAME (required); NIWA_SPRT (default "elo0=0 elo1=50"); NIWA_GAMES
# (the most games before the SPRT is called inconclusive, default 1000); NIWA_JSON (the
# match's JSON lines, default $RUNNER_TEMP or $TMPDIR: not in the bot's folder, which is
# packed for the ladder); NIWA_MATCH_ARGS (more niwa match options, e.g.
# "--time 0.2s+5s"); NIWA_SERVER and NIWA_TOKEN for the submission.
# Exit status: 0 submitted on H1, or inconclusive (nothing submitted); 3 H0 (nothing
# submitted); anything else is niwa's own status (docs/series.md, "Exit codes").
set -u
new=${1:?usage: niwa-ci.sh NEW_DIR OLD_DIR}
old=${2:?usage: niwa-ci.sh NEW_DIR OLD_DIR}
game=${NIWA_GAME:?set NIWA_GAME to the game to gate on, e.g. blossom}

# shellcheck disable=SC2086  # NIWA_SPRT and NIWA_MATCH_ARGS are word lists
json=${NIWA_JSON:-${RUNNER_TEMP:-${TMPDIR:-/tmp}}/niwa-match.jsonl}
niwa match "$game" --bot "$new" --bot "$old" --sprt ${NIWA_SPRT:-elo0=0 elo1=50} \
    --games "${NIWA_GAMES:-1000}" --json "$json" --exit-verdict ${NIWA_MATCH_ARGS:-}
status=$?
case $status in
    0) ;;
    3) echo "niwa-ci: H0, $new is not stronger than $old: not submitted" >&2; exit 3 ;;
    4) echo "niwa-ci: inconclusive after ${NIWA_GAMES:-1000} games: not submitted" >&2
       exit 0 ;;
    *) echo "niwa-ci: niwa match exited $status: not submitted" >&2; exit "$status" ;;
esac
if [ -z "${NIWA_TOKEN:-}" ]; then
    echo "niwa-ci: H1, but NIWA_TOKEN is empty (no secret here?): set the NIWA_TOKEN" \
        "secret to submit" >&2
    exit 5
fi
echo "niwa-ci: H1, submitting $new" >&2
exec niwa ladder submit "$new"
