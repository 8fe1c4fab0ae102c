/**
 * Scoped deny rules for a planned node that holds a `Bash(git …)` grant (SPEC §8 layer 5).
 *
 * `Bash(git *)` is a prefix grant, not a sandbox: measured on claude 2.1.332 (test/policy/
 * git-grant.real-cli.test.ts), a node holding it ran `git -c alias.x='!touch …' x` (any command),
 * `git diff --output=/outside` (a write anywhere), `git grep -O'cmd'` (any command) and `git commit`
 * (moving the user's branch). Deny rules beat allow rules in the real CLI (research/fake-model.md §3,
 * arms E and L), so the ceiling adds these to `--disallowedTools`. What stays runnable is read-only git:
 * `status`, `diff`, `log`, `show`, `ls-files`, `rev-parse`, `blame`, `grep`, `merge-base`, `cat-file`, ….
 *
 * This is a deny list over a prefix grant. It names the ways known to write, run a command, reach the
 * network or read stored credentials through git; an extension point it does not foresee stays open
 * (SECURITY.md says so). Claude matches a rule against the command as its shell parser reads it: quoting
 * and extra whitespace do not get around a rule, and `Bash(git commit *)` also matches a bare
 * `git commit`. A `*` may stand anywhere in a rule (`Bash(git * --output*)`).
 */

/**
 * Every rule, grouped by why. A rule without a space before its `*` also covers the hyphenated siblings
 * (`git commit*` → `commit-tree`, `commit-graph`; `git update*` → `update-ref`, `update-index`).
 */
export const GIT_DENY_RULES: readonly string[] = Object.freeze([
  // Global options before the subcommand: -c (any config, so any alias or pager), -C / --git-dir /
  // --work-tree (another repository's config), --exec-path, -p (the configured pager). Denying every
  // leading option also keeps each subcommand rule below looking at the subcommand.
  "Bash(git -*)",
  "Bash(git -c *)",
  "Bash(git --config-env*)",
  // Configuration, commits, refs, branches and the working tree: what a read-only node never needs.
  "Bash(git config*)",
  "Bash(git commit*)",
  "Bash(git add *)",
  "Bash(git stage *)",
  "Bash(git rm *)",
  "Bash(git mv *)",
  "Bash(git restore *)",
  "Bash(git reset *)",
  "Bash(git checkout*)",
  "Bash(git switch *)",
  "Bash(git branch *)",
  "Bash(git tag *)",
  "Bash(git stash *)",
  "Bash(git clean *)",
  "Bash(git worktree *)",
  "Bash(git sparse-checkout *)",
  "Bash(git merge *)",
  "Bash(git merge-file *)",
  "Bash(git merge-index *)",
  "Bash(git merge-one-file *)",
  "Bash(git merge-tree *)",
  "Bash(git rebase *)",
  "Bash(git replay *)",
  "Bash(git cherry-pick *)",
  "Bash(git revert *)",
  "Bash(git am *)",
  "Bash(git apply *)",
  "Bash(git update*)",
  "Bash(git symbolic-ref *)",
  "Bash(git read-tree *)",
  "Bash(git notes *)",
  "Bash(git replace *)",
  "Bash(git reflog *)",
  "Bash(git rerere *)",
  "Bash(git filter-*)",
  "Bash(git fast-import*)",
  "Bash(git init*)",
  "Bash(git gc *)",
  "Bash(git repack *)",
  "Bash(git prune*)",
  "Bash(git pack*)",
  "Bash(git maintenance *)",
  "Bash(git multi-pack-index *)",
  "Bash(git index-pack *)",
  "Bash(git unpack-*)",
  "Bash(git interpret-trailers *)",
  "Bash(git mailsplit *)",
  "Bash(git mailinfo *)",
  "Bash(git hook *)",
  // Commands that run another program: bisect run, submodule foreach, difftool/mergetool, help's browser,
  // instaweb, for-each-repo, the fsmonitor daemon, git-lfs.
  "Bash(git bisect *)",
  "Bash(git submodule*)",
  "Bash(git difftool *)",
  "Bash(git mergetool *)",
  "Bash(git help *)",
  "Bash(git instaweb *)",
  "Bash(git web--browse *)",
  "Bash(git for-each-repo *)",
  "Bash(git fsmonitor*)",
  "Bash(git lfs *)",
  "Bash(git gui *)",
  "Bash(git citool *)",
  // The network, and stored credentials (`git credential fill` prints them).
  "Bash(git push *)",
  "Bash(git pull *)",
  "Bash(git fetch*)",
  "Bash(git clone *)",
  "Bash(git remote*)",
  "Bash(git ls-remote *)",
  "Bash(git request-pull *)",
  "Bash(git send*)",
  "Bash(git imap-send *)",
  "Bash(git http*)",
  "Bash(git upload*)",
  "Bash(git receive*)",
  "Bash(git daemon *)",
  "Bash(git shell *)",
  "Bash(git svn *)",
  "Bash(git p4 *)",
  "Bash(git cvs*)",
  "Bash(git archimport *)",
  "Bash(git quiltimport *)",
  "Bash(git credential*)",
  // Files written wherever the option points: --output on the diff family, format-patch, archive,
  // bundle, bugreport and diagnose.
  "Bash(git * --output*)",
  "Bash(git format-patch *)",
  "Bash(git archive *)",
  "Bash(git bundle *)",
  "Bash(git bugreport *)",
  "Bash(git diagnose *)",
  // Options of read-only commands that run a program: grep's pager (-O, also bundled as -nO, and
  // --open-files-in-pager, which git accepts abbreviated) and the external diff driver.
  "Bash(git grep *-*O*)",
  "Bash(git grep *--op*)",
  "Bash(git * --ext-diff*)",
  // Changing directory: a node that can write files could plant a bare repository (HEAD, config, objects/,
  // refs/) in the workspace or under /tmp and run git inside it with that config's aliases (measured).
  // A compound `cd dir && git …` is already refused in dontAsk; these close the separate `cd`.
  "Bash(cd *)",
  "Bash(cd)",
  "Bash(pushd *)",
  "Bash(popd *)",
  "Bash(popd)",
]);

/** The scope inside `Bash(...)`, its `*` and `:` read as spaces; `undefined` for any other entry. */
function bashScopeWords(entry: string): string[] | undefined {
  const match = /^\s*Bash\((.*)\)\s*$/s.exec(entry);
  if (match === null) return undefined;
  return (match[1] ?? "").replace(/[*:]/g, " ").trim().split(/\s+/);
}

/** Whether a declaration holds any `Bash(git …)` grant (`Bash(git *)`, `Bash(git log *)`, `Bash(git:*)`). */
export function declaresGit(allowedTools: readonly string[]): boolean {
  return allowedTools.some((entry) => bashScopeWords(entry)?.[0] === "git");
}

/**
 * The git deny rules for a planned node's declaration: none without a `Bash(git …)` grant; otherwise
 * {@link GIT_DENY_RULES} minus any rule the declaration grants word for word (a maintainers' policy file
 * that adds `Bash(git commit *)` on purpose keeps it).
 */
export function gitDenyRules(allowedTools: readonly string[]): string[] {
  if (!declaresGit(allowedTools)) return [];
  return GIT_DENY_RULES.filter((rule) => !allowedTools.includes(rule));
}
