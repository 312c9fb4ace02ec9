/** Example inputs for the "Insert an example" buttons. */

/** A README that quotes the MIT licence's grant: matches the starter dataset. */
export const ANALYZE_EXAMPLE = `# tiny-queue

A small, dependency-free job queue for the browser and Node.

## License

Copyright (c) 2024 Jane Doe

Permission is hereby granted, free of charge, to any person obtaining a copy of this software and
associated documentation files (the "Software"), to deal in the Software without restriction, including
without limitation the rights to use, copy, modify, merge, publish, distribute, sublicense, and/or sell
copies of the Software, and to permit persons to whom the Software is furnished to do so, subject to the
following conditions:

The above copyright notice and this permission notice shall be included in all copies or substantial
portions of the Software.
`;

/** A story and a later retelling: two passages reused in the other order, lightly edited. */
export const COMPARE_EXAMPLE = {
  a: `The lighthouse keeper climbed the spiral stairs every evening at dusk, carrying a can of oil and a rag for the great lens. He had done this for thirty-one years, through storms that rattled the windows and calm nights when the sea lay flat as slate.

His daughter, who lived in the harbour town, sent him letters with the grocer's van in summer. She wrote about the school. She wrote about the price of coal. She described the new bridge that the council argued over for a decade. She sent drawings by her son. She asked, every time, when he would retire. He never answered that question.

In the winter of the great freeze, the supply boat failed to arrive for six weeks. The keeper rationed his flour and lamp oil, burning the light for only the darkest hours, and wrote each evening in his log the names of the ships that passed.

When the boat finally came, the crew found him thin but cheerful, the log complete, and the lens polished to a shine that caught the afternoon sun like a second star.`,
  b: `Local historians still tell the story. In the winter of the great freeze, the supply boat did not arrive for six weeks; the keeper rationed his flour and his lamp oil, burning the light only in the darkest hours, and each evening he wrote in his log the names of the ships that passed.

Records from the port authority are incomplete for those years. Several archives were lost in a fire. Much of what we know comes from interviews. They were recorded in the nineteen-seventies. Fishermen and their families were asked what they remembered. Their answers did not always agree.

What is certain is that the keeper climbed the spiral stairs every evening at dusk, carrying a can of oil and a rag for the great lens, as he had done for thirty-one years, through storms that rattled the windows.

The museum now keeps his log behind glass.`,
};
