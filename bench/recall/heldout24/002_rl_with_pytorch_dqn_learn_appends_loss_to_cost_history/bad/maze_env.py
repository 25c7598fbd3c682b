"""A 4x4 grid maze drawn with tkinter: reach the yellow square, avoid the two black holes."""
import time
import tkinter as tk

import numpy as np

UNIT = 40
MAZE_H = 4
MAZE_W = 4


class Maze(tk.Tk):
    def __init__(self):
        super().__init__()
        self.action_space = ["u", "d", "l", "r"]
        self.n_actions = len(self.action_space)
        self.n_features = 2
        self.title("maze")
        self.geometry(f"{MAZE_W * UNIT}x{MAZE_H * UNIT}")
        self.canvas = tk.Canvas(self, bg="white", height=MAZE_H * UNIT, width=MAZE_W * UNIT)
        self.holes = [self._square(2, 1, "black"), self._square(1, 2, "black")]
        self.goal = self._square(2, 2, "yellow")
        self.agent = self._square(0, 0, "red")
        self.canvas.pack()

    def _square(self, col, row, colour):
        x0, y0 = col * UNIT + 5, row * UNIT + 5
        return self.canvas.create_rectangle(x0, y0, x0 + UNIT - 10, y0 + UNIT - 10, fill=colour)

    def _observation(self):
        agent = np.array(self.canvas.coords(self.agent)[:2])
        goal = np.array(self.canvas.coords(self.goal)[:2])
        return (agent - goal) / (MAZE_H * UNIT)

    def reset(self):
        self.update()
        time.sleep(0.1)
        self.canvas.delete(self.agent)
        self.agent = self._square(0, 0, "red")
        return self._observation()

    def step(self, action):
        x, y = self.canvas.coords(self.agent)[:2]
        dx, dy = {0: (0, -UNIT), 1: (0, UNIT), 2: (-UNIT, 0), 3: (UNIT, 0)}[action]
        if not (0 <= x + dx < MAZE_W * UNIT and 0 <= y + dy < MAZE_H * UNIT):
            dx, dy = 0, 0
        self.canvas.move(self.agent, dx, dy)
        position = self.canvas.coords(self.agent)
        if position == self.canvas.coords(self.goal):
            return self._observation(), 1, True
        if position in [self.canvas.coords(h) for h in self.holes]:
            return self._observation(), -1, True
        return self._observation(), 0, False

    def render(self):
        self.update()
