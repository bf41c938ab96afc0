"""The experiments of Sections 6 and 7: the grid of anonymised datasets, the results store, the
runner that fills it (resumable, parallel), and the analyses behind Tables 7-12 and Figures 5-14."""
