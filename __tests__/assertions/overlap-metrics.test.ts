/**
 * The metrics against published reference values: NLTK's documented examples
 * (nltk.translate bleu_score, gleu_score, meteor_score docstrings and its
 * test_meteor unit test, values checked with NLTK 3.8; METEOR with WordNet
 * switched off, which these examples do not need), and ROUGE-N by Lin's
 * definition worked by hand.
 */
import { describe, expect, it } from '@jest/globals'
import { bleu, gleu, meteor, rougeN } from '../../src/assertions/overlap-metrics.js'

const words = (s: string) => s.split(' ')

// the sentences of NLTK's docstrings (from Papineni et al.'s paper)
const hyp1 = words('It is a guide to action which ensures that the military always obeys the commands of the party')
const hyp2 = words('It is to insure the troops forever hearing the activity guidebook that party direct')
const ref1 = words('It is a guide to action that ensures that the military will forever heed Party commands')
const ref2 = words('It is the guiding principle which guarantees the military forces always being under the command of the Party')
const ref3 = words('It is the practical guide for the army always to heed the directions of the party')
const cat = words('the cat sat on the mat')

describe('BLEU', () => {
  it.each<[string, string[], string[][], number]>([
    ['NLTK sentence_bleu docstring, three references', hyp1, [ref1, ref2, ref3], 0.5045666840058485],
    ['one reference', hyp1, [ref1], 0.41180376356915777],
    ['one word changed', words('the cat sat on a mat'), [cat], 0.537284965911771],
    ['identical', cat, [cat], 1]
  ])('%s', (_name, candidate, references, expected) => {
    expect(bleu(candidate, references)).toBeCloseTo(expected, 12)
  })

  it('is 0 when an n-gram order has no match (unsmoothed, as in the paper)', () => {
    expect(bleu(words('dogs run in the park'), [cat])).toBe(0)
  })

  it('takes the brevity penalty from the reference closest in length', () => {
    // 5 words against references of 5 and 2: the 5-word one gives no penalty
    expect(bleu(words('the cat sat on mat'), [words('the cat sat on mat'), words('cat mat')])).toBeCloseTo(1, 12)
  })
})

describe('GLEU', () => {
  it.each<[string, string[], string[][], number]>([
    ['NLTK sentence_gleu docstring, hyp1', hyp1, [ref1], 0.4393939393939394],
    ['NLTK sentence_gleu docstring, hyp2', hyp2, [ref1], 0.1206896551724138],
    ['the best of three references', hyp1, [ref1, ref2, ref3], 0.4393939393939394],
    ['identical', cat, [cat], 1],
    ['nothing shared', words('a b'), [words('c d')], 0]
  ])('%s', (_name, candidate, references, expected) => {
    expect(gleu(candidate, references)).toBeCloseTo(expected, 12)
  })
})

describe('METEOR', () => {
  it.each<[string, string[], string[][], number]>([
    ['NLTK meteor_score docstring', hyp1, [ref1], 0.6944444444444445],
    ['NLTK test_meteor (one chunk of four)', words('this is a test'), [words('this is a test'), words('this istest')], 0.9921875],
    ['hyp2 against ref1', hyp2, [ref1], 0.3035391371738569],
    ['stems match: cats/cat, mats/mat', cat, [words('the cats are sitting on the mats')], 0.7014492753623188],
    ['an inserted word splits the chunks', words('the cat was sitting on the mat'), [cat], 0.7934426229508196],
    ['nothing shared', words('a b'), [words('c d')], 0]
  ])('%s', (_name, candidate, references, expected) => {
    expect(meteor(candidate, references)).toBeCloseTo(expected, 12)
  })
})

describe('ROUGE-N (recall)', () => {
  it.each<[string, string[], string[], number, number]>([
    // reference unigrams: the×2 cat sat on mat; the candidate has the×1 cat on mat → 4 of 6
    ['unigrams, clipped', words('a cat on the mat'), cat, 1, 4 / 6],
    // reference bigrams: the-cat cat-sat sat-on on-the the-mat; found: the-cat, on-the, the-mat
    ['bigrams', words('the cat lay on the mat'), cat, 2, 3 / 5],
    ['identical', cat, cat, 1, 1],
    ['extra candidate words do not lower recall', words('the cat sat on the mat all day'), cat, 1, 1],
    ['reference shorter than n', cat, words('cat'), 2, 0]
  ])('%s', (_name, candidate, reference, n, expected) => {
    expect(rougeN(candidate, reference, n)).toBeCloseTo(expected, 12)
  })
})
