; Satellite, STRIPS with typing: the domain of the 3rd International Planning Competition (IPC 2002,
; D. Long and M. Fox; "The 3rd International Planning Competition: Results and Analysis", JAIR 20,
; 2003), as its `satellite-strips-automatic` track defined it (turn_to with the inequality
; precondition of that track). Written for genplan from that published definition (same types,
; predicates and action schemas; our layout): no copy under a licence that allows one was found.
; Checked action by action against potassco/pddl-instances
; ipc-2002/domains/satellite-strips-automatic/domain.pddl (commit
; cf19edf7c53d1540ddbb396c642595e0926ee552, no licence file). AI-Planning/pddl-generators
; satellite/domain.pddl (commit a0de95f1ddd67a1c5ba67d3a5107f855722f09b0, no licence file; the
; generators PlanGPT used) drops the inequality, so it lets a satellite "turn" to where it points;
; the IPC 2023 learning track's copy replaces it by (not (pointing ?s ?d_new)). Plans valid here are
; valid in both. Requirements: :negative-preconditions added to the IPC file's :strips :equality
; :typing, because pymimir refuses a negated equality without it (the schemas are unchanged).
(define (domain satellite)
  (:requirements :strips :equality :negative-preconditions :typing)
  (:types satellite direction instrument mode)
  (:predicates (on_board ?i - instrument ?s - satellite)
               (supports ?i - instrument ?m - mode)
               (pointing ?s - satellite ?d - direction)
               (power_avail ?s - satellite)
               (power_on ?i - instrument)
               (calibrated ?i - instrument)
               (have_image ?d - direction ?m - mode)
               (calibration_target ?i - instrument ?d - direction))

  (:action turn_to
    :parameters (?s - satellite ?d_new - direction ?d_prev - direction)
    :precondition (and (pointing ?s ?d_prev) (not (= ?d_new ?d_prev)))
    :effect (and (pointing ?s ?d_new) (not (pointing ?s ?d_prev))))

  (:action switch_on
    :parameters (?i - instrument ?s - satellite)
    :precondition (and (on_board ?i ?s) (power_avail ?s))
    :effect (and (power_on ?i) (not (calibrated ?i)) (not (power_avail ?s))))

  (:action switch_off
    :parameters (?i - instrument ?s - satellite)
    :precondition (and (on_board ?i ?s) (power_on ?i))
    :effect (and (not (power_on ?i)) (power_avail ?s)))

  (:action calibrate
    :parameters (?s - satellite ?i - instrument ?d - direction)
    :precondition (and (on_board ?i ?s) (calibration_target ?i ?d) (pointing ?s ?d) (power_on ?i))
    :effect (calibrated ?i))

  (:action take_image
    :parameters (?s - satellite ?d - direction ?i - instrument ?m - mode)
    :precondition (and (calibrated ?i) (on_board ?i ?s) (supports ?i ?m) (power_on ?i)
                       (pointing ?s ?d))
    :effect (have_image ?d ?m)))
