# `spinscope top` (issue 32): the live view draws with ncurses (wide: the
# names are UTF-8); its tests drive it in a real terminal emulator (tmux)
# and the agent with promtool, a Prometheus server (mk/exports.mk's) and
# systemd-analyze for the unit.
DEB_DEPS += libncurses-dev tmux systemd

LIBS += -lncursesw -ltinfo
